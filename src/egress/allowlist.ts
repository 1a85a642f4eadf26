/**
 * The egress allowlist (SPEC 2.2 `network: { allow }`): each entry parsed into a rule, and a connection matched by
 * the name (or address) the server asked for. Pure; validation (src/config) and the proxy share this one parser.
 *   host          the host itself, ports 443 and 80
 *   host:port     the host on that port only (also a plain TCP forward in the server's namespace)
 *   *.domain      subdomains only (not domain itself), ports 443 and 80; `*.domain:port` for one port
 *   ip/cidr:port  an address or range, port required (IPv6 in brackets: `[fd00::5]:443`, `[fd00::/64]:443`)
 *   *             anything public (needs dangerous.allowAnyEgress); named addresses still need their own entry
 */
import { parseCidr, type Family } from "./addresses.ts";

export const WEB_PORTS = [443, 80] as const;

export type EgressRule =
  | { readonly kind: "host"; readonly host: string; readonly ports: readonly number[]; readonly entry: string }
  | { readonly kind: "suffix"; readonly suffix: string; readonly ports: readonly number[]; readonly entry: string }
  | {
      readonly kind: "address";
      readonly cidr: string;
      readonly family: Family;
      readonly port: number;
      readonly contains: (address: string) => boolean;
      readonly entry: string;
    }
  | { readonly kind: "any"; readonly entry: "*" };

export type ParsedEntry = { ok: true; rule: EgressRule } | { ok: false; message: string; hint?: string };

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const MAX_NAME = 253;

/** A DNS name as the proxy will be asked for it: lowercase, no trailing dot, valid labels, not an IP address. */
export function normalizeHost(host: string): string | undefined {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (h.length === 0 || h.length > MAX_NAME) return undefined;
  const labels = h.split(".");
  if (!labels.every((l) => LABEL.test(l))) return undefined;
  if (/^[\d.]+$/.test(h)) return undefined; // a dotted number that is not a valid IPv4 address
  return h;
}

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** Splits `host:port`, `[v6]:port` and `[v6/64]:port`; a bare IPv6 address (several colons) has no port. */
function splitPort(entry: string): { host: string; port?: string; bracketed: boolean } {
  const bracket = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracket) return { host: bracket[1]!, port: bracket[2], bracketed: true };
  const colons = entry.split(":").length - 1;
  if (colons === 1) {
    const [host, port] = entry.split(":") as [string, string];
    return { host, port, bracketed: false };
  }
  return { host: entry, bracketed: false };
}

export function parseEntry(raw: string): ParsedEntry {
  const entry = raw.trim();
  if (entry === "*") return { ok: true, rule: { kind: "any", entry: "*" } };
  if (entry === "") return { ok: false, message: "is empty", hint: 'write a host such as "api.github.com"' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) {
    const host = entry.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").split("/")[0];
    return { ok: false, message: `"${raw}" is a URL`, hint: `write the host (and port) alone, e.g. "${host}"` };
  }
  if (/[/?#@\s]/.test(entry.replace(/\/\d{1,3}(?=\]|:|$)/, ""))) {
    return { ok: false, message: `"${raw}" is not a host, host:port, *.domain or ip/cidr:port`, hint: "no paths, users or spaces" };
  }
  const { host, port: portText, bracketed } = splitPort(entry);
  const port = portText === undefined ? undefined : parsePort(portText);
  if (portText !== undefined && port === undefined) {
    return { ok: false, message: `"${raw}": ${JSON.stringify(portText)} is not a port`, hint: "a port is 1-65535" };
  }
  const cidr = parseCidr(host);
  if (cidr || bracketed || /^[\d./]+$/.test(host) || host.includes(":")) {
    if (!cidr) return { ok: false, message: `"${raw}": ${JSON.stringify(host)} is not an IP address or CIDR range` };
    if (port === undefined) {
      const shown = cidr.family === "ipv6" ? `[${host}]:443` : `${host}:443`;
      return { ok: false, message: `"${raw}": an address needs a port`, hint: `e.g. "${shown}"` };
    }
    return { ok: true, rule: { kind: "address", cidr: cidr.text, family: cidr.family, port, contains: cidr.contains, entry } };
  }
  const ports = port === undefined ? WEB_PORTS : [port];
  if (host.startsWith("*.")) {
    const suffix = normalizeHost(host.slice(2));
    if (!suffix) return { ok: false, message: `"${raw}": ${JSON.stringify(host.slice(2))} is not a domain name` };
    return { ok: true, rule: { kind: "suffix", suffix, ports, entry } };
  }
  if (host.includes("*")) {
    return { ok: false, message: `"${raw}": a wildcard may only start the name ("*.example.com")` };
  }
  const name = normalizeHost(host);
  if (!name && /[^\x00-\x7f]/.test(host)) {
    return { ok: false, message: `"${raw}": ${JSON.stringify(host)} is not a host name in ASCII`, hint: "write an international name in its xn-- form (what `new URL(\"https://<name>\").hostname` prints)" };
  }
  if (!name) return { ok: false, message: `"${raw}": ${JSON.stringify(host)} is not a host name` };
  return { ok: true, rule: { kind: "host", host: name, ports, entry } };
}

/** Every entry parsed; the bad ones come back with their index so each gets its own error. */
export function parseAllowlist(entries: readonly string[]): { rules: EgressRule[]; errors: Array<{ index: number; message: string; hint?: string }> } {
  const rules: EgressRule[] = [];
  const errors: Array<{ index: number; message: string; hint?: string }> = [];
  entries.forEach((e, index) => {
    const parsed = parseEntry(e);
    if (parsed.ok) rules.push(parsed.rule);
    else errors.push({ index, message: parsed.message, ...(parsed.hint ? { hint: parsed.hint } : {}) });
  });
  return { rules, errors };
}

/** Does a name rule allow `host:port`? (IP literals are judged by address rules only.) */
export function nameAllowed(rules: readonly EgressRule[], host: string, port: number): EgressRule | undefined {
  return rules.find((r) => {
    if (r.kind === "any") return true;
    if (r.kind === "host") return r.host === host && r.ports.includes(port);
    if (r.kind === "suffix") return host.endsWith(`.${r.suffix}`) && r.ports.includes(port);
    return false;
  });
}

/** The address rule that names `address:port` explicitly, if any. */
export function addressNamed(rules: readonly EgressRule[], address: string, port: number): EgressRule | undefined {
  return rules.find((r) => r.kind === "address" && r.port === port && r.contains(address));
}

/** The `host:port` entries: each becomes a plain TCP forward in the server's network namespace. */
export function tcpForwards(rules: readonly EgressRule[]): Array<{ host: string; port: number }> {
  const out = new Map<string, { host: string; port: number }>();
  for (const r of rules) {
    if (r.kind === "host" && r.ports.length === 1) out.set(`${r.host}:${r.ports[0]}`, { host: r.host, port: r.ports[0]! });
  }
  return [...out.values()];
}
