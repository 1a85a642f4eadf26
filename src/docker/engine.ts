/**
 * The connection to the Docker engine. dockerode is imported here and in the docker/ folder only. DOCKER_HOST and
 * the usual client variables are honoured by docker-modem. An unreachable engine is an environment error (exit 3).
 */
import Docker from "dockerode";
import { createRequire } from "node:module";
import { dockerodeOptions } from "./discover.ts";
import { engineDiscovery, engineError } from "./engine-socket.ts";

export type { default as Docker } from "dockerode";
const builtin = createRequire(import.meta.url);
// where the engine is and what its errors say need no dockerode: serve's start asks them before it is loaded
export { engineAddress, engineDiscovery, engineError } from "./engine-socket.ts";

let shared: Docker | undefined;

/** One client per process, created on first use, to the engine discover.ts finds (DOCKER_HOST first). */
export function engine(): Docker {
  shared ??= withOwnAgent(new Docker(dockerodeOptions(engineDiscovery().found)));
  return shared;
}

/**
 * A TCP engine (plain or TLS) is reached through an agent of mcpbox's own, never Node's global one: Node 24's global
 * agent follows HTTP_PROXY/HTTPS_PROXY when NODE_USE_ENV_PROXY=1 (or --use-env-proxy) is set, which sent every request
 * to a tcp:// engine, each create's body with the Env and its secrets, and the attach stream of every server's MCP
 * traffic through that proxy. The same settings as Node's global agent otherwise (keep-alive, 5 s idle). A unix
 * socket or a named pipe takes no proxy; ssh has its own agent (docker-modem's).
 */
export function withOwnAgent(docker: Docker): Docker {
  const modem = docker.modem as unknown as { protocol?: string; socketPath?: unknown; agent?: unknown };
  if (modem.socketPath || modem.agent || (modem.protocol !== "http" && modem.protocol !== "https")) return docker;
  const options = { keepAlive: true, timeout: 5000 };
  // node:https (and node:tls with it) only for a TLS engine (_hijack.ts says why)
  modem.agent = modem.protocol === "https" ? engineTlsAgent(options) : new (builtin("node:http") as typeof import("node:http")).Agent(options);
  return docker;
}

/**
 * The TLS engine's agent. Node's https agent names each pool by the request's TLS options, the client key
 * (DOCKER_CERT_PATH/key.pem) among them in full, and its debug output (NODE_DEBUG=http or https, which the binary
 * honours like any Node) printed that name and the options of each new connection on stderr, the client's log file.
 * This one has one pool under a fixed name and connects with tls.connect itself, so nothing prints the key; the
 * connection is the same (servername, ca, cert, key and checkServerIdentity come in the options). It keeps no TLS
 * session for resumption: a new connection (requests at the same moment, each attach) makes a full handshake.
 */
function engineTlsAgent(options: import("node:https").AgentOptions): import("node:https").Agent {
  const https = builtin("node:https") as typeof import("node:https");
  const tls = builtin("node:tls") as typeof import("node:tls");
  class EngineTlsAgent extends https.Agent {
    override getName(): string {
      return "mcpbox-engine";
    }
    // the agent adds a socket returned at once to its pool itself (its callback is for proxied tunnels)
    override createConnection(connect: import("node:tls").ConnectionOptions): import("node:tls").TLSSocket {
      return tls.connect(connect);
    }
  }
  return new EngineTlsAgent(options);
}

export interface EngineInfo {
  version: string;
  apiVersion: string;
  os: string;
  arch: string;
}

/** Pings the engine; throws an environment error that says what to do when it cannot be reached. */
export async function connectEngine(docker: Docker = engine()): Promise<EngineInfo> {
  try {
    await docker.ping();
    const v = await docker.version();
    return { version: v.Version, apiVersion: v.ApiVersion, os: v.Os, arch: v.Arch };
  } catch (e) {
    throw engineError(e);
  }
}

/**
 * Only whether the engine answers (one round trip; connectEngine's version query took 30-60 ms more on this machine):
 * the gateway's start, which needs no engine details. Same error as connectEngine when it cannot be reached.
 */
export async function pingEngine(docker: Docker = engine()): Promise<void> {
  try {
    await docker.ping();
  } catch (e) {
    throw engineError(e);
  }
}
