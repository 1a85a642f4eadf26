/**
 * What the proxy and the forwarder processes are told (one JSON document in MCPBOX_EGRESS), and how the launcher
 * derives both from one server's allowlist. Pure.
 */
import { parseAllowlist, tcpForwards } from "./allowlist.ts";

export const SETTINGS_ENV = "MCPBOX_EGRESS";
/** The folder (a volume shared by the proxy and the forwarder only) that holds the proxy's sockets. */
export const SOCKET_DIR = "/egress";
/** The forwarder's HTTP proxy port on the server's loopback: what HTTPS_PROXY and HTTP_PROXY point at. */
export const HTTP_PROXY_PORT = 3128;

export interface ProxySettings {
  readonly role: "proxy";
  readonly listeners: ReadonlyArray<{ readonly server: string; readonly socket: string; readonly allow: readonly string[] }>;
  /** refused behind names as private addresses are (the proxy also reads its own default gateways) */
  readonly gateways?: readonly string[];
}

export interface TcpForward {
  /** a loopback address of its own (127.0.1.n): the server keeps the port it knows, /etc/hosts maps the name here */
  readonly listen: string;
  readonly port: number;
  readonly host: string;
}

export interface ForwarderSettings {
  readonly role: "forward";
  readonly socket: string;
  readonly http: { readonly listen: string; readonly port: number };
  readonly tcp: readonly TcpForward[];
  /** the server's allowlist: which CONNECTs are answered at once (the proxy still decides each, see forwarder.ts) */
  readonly allow?: readonly string[];
}

export const socketPath = (server: string) => `${SOCKET_DIR}/${server}.sock`;

/** One server's forwarder: the HTTP proxy port, and one loopback address per `host:port` entry. */
export function forwarderSettings(server: string, allow: readonly string[]): ForwarderSettings {
  const { rules } = parseAllowlist(allow);
  const hosts = new Map<string, string>(); // one address per name: its ports all listen there
  const tcp = tcpForwards(rules).map((f) => {
    if (!hosts.has(f.host)) hosts.set(f.host, loopbackFor(hosts.size));
    return { listen: hosts.get(f.host)!, port: f.port, host: f.host };
  });
  return { role: "forward", socket: socketPath(server), http: { listen: "127.0.0.1", port: HTTP_PROXY_PORT }, tcp, allow: [...allow] };
}

function loopbackFor(i: number): string {
  if (i >= 254 * 254) throw new Error("too many host:port entries");
  return `127.0.${1 + Math.floor(i / 254)}.${1 + (i % 254)}`;
}

/** `name:address` pairs for the netns owner's /etc/hosts, which the server's container shares. */
export function forwardHosts(f: ForwarderSettings): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of f.tcp) {
    if (seen.has(t.host)) continue;
    seen.add(t.host);
    out.push(`${t.host}:${t.listen}`);
  }
  return out;
}

/** The proxy variables the server gets (SPEC 10); Node honours them with NODE_USE_ENV_PROXY=1. */
export function serverProxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${HTTP_PROXY_PORT}`;
  const noProxy = "localhost,127.0.0.1,::1";
  return {
    HTTPS_PROXY: url, https_proxy: url, HTTP_PROXY: url, http_proxy: url,
    NO_PROXY: noProxy, no_proxy: noProxy, NODE_USE_ENV_PROXY: "1",
  };
}
