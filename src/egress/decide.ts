/**
 * One connection's verdict: the requested host and port against the rules, the name resolved once, every address
 * checked, and the address to connect to returned (never resolved again: a DNS-rebinding answer cannot slip in
 * between the check and the connection). Pure apart from the resolver the caller hands in.
 */
import net from "node:net";
import { addressNamed, nameAllowed, normalizeHost, type EgressRule } from "./allowlist.ts";
import { canonicalAddress, forbiddenReason } from "./addresses.ts";

export type Verdict = { ok: true; address: string; rule: string } | { ok: false; reason: string };

export interface DecideOptions {
  rules: readonly EgressRule[];
  /** every address the name resolves to (getaddrinfo in the proxy) */
  resolve: (host: string) => Promise<readonly string[]>;
  /** addresses refused behind a name as private ones are: the proxy network's gateways */
  gateways?: readonly string[];
}

/** `host:port` of a CONNECT request (IPv6 in brackets); undefined for anything else. */
export function connectTarget(authority: string | undefined): { host: string; port: number } | undefined {
  const m = /^(\[[^\]]+\]|[^:\[\]]+):(\d{1,5})$/.exec(authority ?? "");
  return m ? { host: m[1]!, port: Number(m[2]) } : undefined;
}

/**
 * Whether the rules allow `host:port` by what was asked alone (the name, or an address entry for a literal), before
 * any resolution: the forwarder's hint that the proxy will most likely say yes. Never a decision: `decide` is.
 */
export function likelyAllowed(rules: readonly EgressRule[], rawHost: string, port: number): boolean {
  const asked = requestedHost(rawHost);
  if (!asked || !Number.isInteger(port) || port < 1 || port > 65535) return false;
  return asked.literal ? addressNamed(rules, asked.host, port) !== undefined : nameAllowed(rules, asked.host, port) !== undefined;
}

/** The host as asked (`[::1]` unwrapped), and whether it is an IP literal. */
export function requestedHost(raw: string): { host: string; literal: boolean } | undefined {
  const unwrapped = raw.startsWith("[") && raw.endsWith("]") ? raw.slice(1, -1) : raw;
  if (unwrapped.includes("%")) return undefined; // a scoped IPv6 address (fe80::1%eth0): a zone is never on a list
  if (net.isIP(unwrapped)) return { host: canonicalAddress(unwrapped)!.address, literal: true };
  const host = normalizeHost(unwrapped);
  return host === undefined ? undefined : { host, literal: false };
}

export async function decide(rawHost: string, port: number, o: DecideOptions): Promise<Verdict> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, reason: "not a valid port" };
  const asked = requestedHost(rawHost);
  if (!asked) return { ok: false, reason: "not a valid host name" };
  if (asked.literal) return decideAddress(asked.host, port, o);

  const rule = nameAllowed(o.rules, asked.host, port);
  if (!rule) return { ok: false, reason: "not on the allowlist" };
  let addresses: readonly string[];
  try {
    addresses = await o.resolve(asked.host);
  } catch {
    return { ok: false, reason: "the name does not resolve" };
  }
  const refusals: string[] = [];
  for (const address of addresses) {
    const why = forbiddenReason(address, o.gateways);
    const named = addressNamed(o.rules, address, port);
    if (why === undefined || named) return { ok: true, address: canonicalAddress(address)!.address, rule: named?.entry ?? rule.entry };
    refusals.push(`${address} (${why})`);
  }
  if (refusals.length === 0) return { ok: false, reason: "the name does not resolve" };
  return { ok: false, reason: `resolves to ${refusals.slice(0, 3).join(", ")}, refused unless an entry names that address` };
}

/** An IP literal: only an address entry allows it; `*` allows public addresses only. */
function decideAddress(address: string, port: number, o: DecideOptions): Verdict {
  const named = addressNamed(o.rules, address, port);
  if (named) return { ok: true, address, rule: named.entry };
  const any = o.rules.find((r) => r.kind === "any");
  if (!any) return { ok: false, reason: "not on the allowlist" };
  const why = forbiddenReason(address, o.gateways);
  if (why !== undefined) return { ok: false, reason: `${address} is ${why}, refused unless an entry names it` };
  return { ok: true, address, rule: any.entry };
}
