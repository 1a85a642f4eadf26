/** `serve --http [host:]port` (SPEC 4.9): where to listen, and whether that is the loopback interface only. */
import net from "node:net";
import { McpboxError } from "../errors.ts";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8808;

export interface ListenAddress {
  /** a name or address as the user wrote it, without brackets */
  host: string;
  /** 0: any free port (the one taken is printed) */
  port: number;
}

/** `8808`, `127.0.0.1:8808`, `localhost:8808`, `[::1]:8808`, `0.0.0.0:8808`; `true` (flag alone) is the default. */
export function parseListen(value: unknown): ListenAddress {
  if (value === undefined || value === true) return { host: DEFAULT_HOST, port: DEFAULT_PORT };
  const text = String(value).trim();
  const bad = (why: string) =>
    new McpboxError("usage", `--http ${JSON.stringify(text)}: ${why}`, { hint: "write [host:]port, e.g. --http 8808, --http 127.0.0.1:8808 or --http [::1]:8808 (server names go before --http)" });
  const m = /^(?:\[([^\]]+)\]:|([^:[\]]+):)?(\d+)$/.exec(text);
  if (!m) throw bad("not a [host:]port");
  const host = m[1] ?? m[2] ?? DEFAULT_HOST;
  if (m[1] !== undefined && net.isIPv6(m[1]) === false) throw bad(`${m[1]} inside brackets is not an IPv6 address`);
  const port = Number(m[3]);
  if (!Number.isInteger(port) || port > 65535) throw bad("the port must be 0 to 65535");
  return { host: host.toLowerCase(), port };
}

/** True for names and addresses that reach this machine's loopback interface only. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  if (net.isIPv4(h)) return h.startsWith("127.");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped !== null && mapped[1]!.startsWith("127.");
}

/** `host:port` as it appears in a URL and a Host header (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  return `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
}
