/**
 * What every HTTP request must show before it reaches an MCP transport (SPEC 4.9): a Host naming the listener
 * (DNS rebinding: a browser page on evil.example whose name now points at 127.0.0.1 still sends Host: evil.example),
 * an Origin, when present, of this machine, and the bearer token. Pure: headers in, a refusal or nothing out.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { hostPort, isLoopback, type ListenAddress } from "./address.ts";

export interface Refusal {
  status: 401 | 403;
  /** said to the client: never what was expected, never the token */
  message: string;
}

/** The Host values a request may carry: the listening name or address with the port, and loopback aliases of it. */
export function allowedHosts(listen: ListenAddress): Set<string> | "any" {
  const { host, port } = listen;
  // a wildcard bind answers under whatever name the machine has on the network; the token is what guards it then
  if (host === "0.0.0.0" || host === "::") return "any";
  const names = new Set([hostPort(host, port)]);
  if (isLoopback(host)) for (const alias of ["localhost", "127.0.0.1", "::1"]) names.add(hostPort(alias, port));
  return names;
}

export function checkHost(header: string | undefined, allowed: Set<string> | "any"): Refusal | undefined {
  if (allowed === "any") return undefined;
  if (header === undefined || !allowed.has(header.toLowerCase())) return { status: 403, message: "Forbidden: this Host is not served here" };
  return undefined;
}

/** A present Origin must be a loopback origin (http or https, any port); `null` and anything else are refused. */
export function checkOrigin(header: string | undefined): Refusal | undefined {
  if (header === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(header);
  } catch {
    return { status: 403, message: "Forbidden: this Origin is not served here" };
  }
  const ok = (url.protocol === "http:" || url.protocol === "https:") && isLoopback(url.hostname);
  return ok ? undefined : { status: 403, message: "Forbidden: this Origin is not served here" };
}

/** `Authorization: Bearer <token>`, compared in constant time (digests of equal length, whatever was sent). */
export function checkBearer(header: string | undefined, token: string): Refusal | undefined {
  const m = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  const given = m ? m[1]! : "";
  const digest = (s: string) => createHash("sha256").update(s).digest();
  const equal = timingSafeEqual(digest(given), digest(token));
  return equal && m !== null ? undefined : { status: 401, message: "Unauthorized" };
}
