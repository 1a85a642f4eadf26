/**
 * Which addresses an allowed *name* may never lead to (SPEC 10, SSRF and DNS-rebinding guard): loopback, private,
 * link-local, CGNAT, unique-local, metadata, multicast and reserved ranges, and any address the caller adds (the
 * proxy network's gateways). An entry that names the address itself (`10.0.0.5/32:5432`) still reaches it.
 * Pure; imports nothing of mcpbox.
 */
import { createRequire } from "node:module";
import type { BlockList } from "node:net";

// node:net and the ranges on first use, not when the config checks load: validate of a config without an allowlist
// never asks, and they cost it ~8 ms CPU (issue 15)
// (a require: process.getBuiltinModule needs Node 20.16, the npm package runs on any Node 20)
let netModule: typeof import("node:net") | undefined;
const net = () => (netModule ??= createRequire(import.meta.url)("node:net") as typeof import("node:net"));

/** [range, why] pairs; IPv4-mapped and NAT64/6to4 IPv6 forms are judged by (or refused for) the IPv4 inside. */
const V4: ReadonlyArray<readonly [string, number, string]> = [
  ["0.0.0.0", 8, "this network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];
const V6: ReadonlyArray<readonly [string, number, string]> = [
  ["::1", 128, "loopback"],
  ["::", 96, "unspecified or IPv4-compatible"],
  ["::ffff:0:0:0", 96, "IPv4-translated (an IPv4 address inside)"],
  ["64:ff9b::", 96, "NAT64 (an IPv4 address inside)"],
  ["64:ff9b:1::", 48, "NAT64 (an IPv4 address inside)"],
  ["100::", 64, "discard"],
  ["2002::", 16, "6to4 (an IPv4 address inside)"],
  ["fc00::", 7, "unique local (private)"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];

let ranges: Array<{ list: BlockList; why: string }> | undefined;
function forbiddenRanges(): Array<{ list: BlockList; why: string }> {
  if (ranges) return ranges;
  const all: Array<{ list: BlockList; why: string }> = [];
  for (const [a, p, why] of V4) all.push({ list: block(a, p, "ipv4"), why });
  for (const [a, p, why] of V6) all.push({ list: block(a, p, "ipv6"), why });
  return (ranges = all);
}

function block(address: string, prefix: number, family: "ipv4" | "ipv6"): BlockList {
  const list = new (net().BlockList)();
  list.addSubnet(address, prefix, family);
  return list;
}

export type Family = "ipv4" | "ipv6";

let mapped: BlockList | undefined;
const mappedRange = () => (mapped ??= block("::ffff:0:0", 96, "ipv6"));

/** An IP address in one canonical form: IPv4-mapped IPv6 (`::ffff:10.0.0.1`, `::ffff:a00:1`) becomes its IPv4. */
export function canonicalAddress(address: string): { address: string; family: Family } | undefined {
  const kind = net().isIP(address);
  if (kind === 4) return { address, family: "ipv4" };
  if (kind !== 6) return undefined;
  if (mappedRange().check(address, "ipv6")) {
    const v4 = address.includes(".") ? address.slice(address.lastIndexOf(":") + 1) : lastWordsAsV4(address);
    if (v4 !== undefined && net().isIPv4(v4)) return { address: v4, family: "ipv4" };
  }
  return { address: address.toLowerCase(), family: "ipv6" };
}

/** The last 32 bits of a hex-written IPv6 address as dotted IPv4. */
function lastWordsAsV4(address: string): string | undefined {
  const [head, tail] = address.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const words = [...h, ...Array<string>(tail === undefined ? 0 : 8 - h.length - t.length).fill("0"), ...t].map((w) => parseInt(w, 16));
  if (words.length !== 8) return undefined;
  const [hi, lo] = [words[6]!, words[7]!];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

/** Why an allowed name must not lead to this address, or undefined when it may (a public address). */
export function forbiddenReason(address: string, extra: readonly string[] = []): string | undefined {
  const c = canonicalAddress(address);
  if (!c) return "not an IP address";
  for (const e of extra) {
    const x = canonicalAddress(e);
    if (x && x.address === c.address) return "the proxy network's gateway (the host's own services)";
  }
  for (const r of forbiddenRanges()) if (r.list.check(c.address, c.family)) return r.why;
  return undefined;
}

/** A CIDR range as a matcher; undefined when `text` is not `ip` or `ip/prefix`. */
export function parseCidr(text: string): { contains(address: string): boolean; family: Family; text: string } | undefined {
  const [ip, prefixText, ...rest] = text.split("/");
  if (rest.length > 0 || ip === undefined) return undefined;
  const c = canonicalAddress(ip);
  if (!c) return undefined;
  const max = c.family === "ipv4" ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  const list = new (net().BlockList)();
  list.addSubnet(c.address, prefix, c.family);
  return {
    family: c.family,
    text: `${c.address}/${prefix}`,
    contains(address: string) {
      const a = canonicalAddress(address);
      return a !== undefined && a.family === c.family && list.check(a.address, a.family);
    },
  };
}
