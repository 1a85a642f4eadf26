/**
 * A bodiless, hijacked attach request. docker-modem always sends its options as a JSON body (Podman hands that body
 * to the container's stdin) and, without one, never flushes the request headers; so the request is made here, on the
 * engine connection docker-modem resolved (unix socket or named pipe, TCP, TLS). SSH engines use dockerode's attach.
 */
import { createRequire } from "node:module";
import net from "node:net";
import type { Duplex } from "node:stream";
import type Docker from "dockerode";

// required, not imported: Node 24's ESM facade of node:http reads every export, and one of them is a getter that
// loads undici (fetch, WebSocket): about 7 MB of every serve's memory for nothing (issue 15). node:https (and node:tls
// with it, OpenSSL's TLS set-up: ~3 MB of RSS) only when an engine is reached over TLS
const builtin = createRequire(import.meta.url);
const http = builtin("node:http") as typeof import("node:http");
const httpsRequest: typeof http.request = (...args: unknown[]) => (builtin("node:https") as typeof import("node:https")).request(...(args as Parameters<typeof http.request>));

interface ModemInternals {
  socketPath?: unknown;
  getSocketPath(): Promise<string | undefined>;
  host?: string;
  port?: string | number;
  protocol?: string;
  version?: string;
  ca?: unknown;
  cert?: unknown;
  key?: unknown;
  checkServerIdentity?: unknown;
  /** mcpbox's own for a TCP engine (engine.ts withOwnAgent): never Node's global agent, which may follow a proxy */
  agent?: import("node:http").Agent;
}

type Endpoint = { request: typeof http.request; options: import("node:http").RequestOptions & import("node:https").RequestOptions };

async function endpointOf(docker: Docker): Promise<Endpoint | undefined> {
  const m = docker.modem as unknown as ModemInternals;
  if (m.socketPath) {
    const socketPath = await m.getSocketPath();
    return socketPath ? { request: http.request, options: { socketPath } } : undefined;
  }
  const agent = m.agent ? { agent: m.agent } : {};
  if (m.protocol === "http") return { request: http.request, options: { host: m.host, port: m.port, ...agent } };
  if (m.protocol === "https") {
    // only what the modem has: Node refuses a checkServerIdentity key that is there but undefined (every TLS attach failed)
    const given = { ca: m.ca, cert: m.cert, key: m.key, checkServerIdentity: m.checkServerIdentity };
    const tls = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as import("node:https").RequestOptions;
    return { request: httpsRequest, options: { host: m.host, port: m.port, ...tls, ...agent } };
  }
  return undefined;
}

/** The upgraded connection to a container's stdin, stdout and stderr (multiplexed, no TTY). */
export async function hijackAttach(docker: Docker, id: string): Promise<Duplex> {
  const endpoint = await endpointOf(docker);
  if (!endpoint) {
    const opts = { stream: true, stdin: true, stdout: true, stderr: true, hijack: true };
    return (await docker.getContainer(id).attach(opts)) as unknown as Duplex;
  }
  const version = (docker.modem as unknown as ModemInternals).version;
  const path = `${version ? `/${version}` : ""}/containers/${encodeURIComponent(id)}/attach?stream=1&stdin=1&stdout=1&stderr=1`;
  return new Promise((resolve, reject) => {
    const req = endpoint.request({
      ...endpoint.options,
      method: "POST",
      path,
      headers: { Connection: "Upgrade", Upgrade: "tcp", "Content-Length": "0" },
    });
    req.once("upgrade", (_res, socket: net.Socket, head: Buffer) => {
      if (head.length > 0) socket.unshift(head);
      socket.setNoDelay?.(true); // one JSON-RPC line per write: no Nagle delay on TCP engines
      resolve(socket);
    });
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const error = new Error(`attach failed (HTTP ${res.statusCode}): ${engineMessage(text)}`);
        reject(Object.assign(error, { statusCode: res.statusCode }));
      });
    });
    req.once("error", reject);
    req.end();
  });
}

function engineMessage(body: string): string {
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    return body.trim();
  }
}
