/**
 * Which engine this process talks to, the errors that say so, and the two requests `serve` makes before it answers
 * its client from the catalog cache (its ping and the id of an image), sent on the engine's socket with node:http
 * alone: dockerode, docker-modem and what they load (https, tls, a second streams library; ~35 ms of every start, issue
 * 15) are loaded by engine.ts, which the first container start needs and the client's first answers do not. An engine
 * reached any other way than a local socket or named pipe (tcp, TLS, ssh) is asked through dockerode, as before: the
 * caller hands over that way (engine.ts imports this file, so this file does not import it).
 */
import type http from "node:http";
import { createRequire } from "node:module";
import { McpboxError, messageOf } from "../errors.ts";
import { discoverEngine, hostDiscoveryEnv, startHint, type Discovery } from "./discover.ts";

let discovery: Discovery | undefined;

/** Which engine this process uses and where it was found (looked up once). */
export function engineDiscovery(): Discovery {
  discovery ??= discoverEngine(hostDiscoveryEnv());
  return discovery;
}

export function engineAddress(): string {
  // none found: where docker-modem then connects (the named pipe on Windows)
  return process.env.DOCKER_HOST || engineDiscovery().found?.host || (process.platform === "win32" ? "npipe:////./pipe/docker_engine" : "unix:///var/run/docker.sock");
}

export function engineError(e: unknown): McpboxError {
  const code = (e as { code?: string } | null)?.code;
  const found = process.env.DOCKER_HOST ? undefined : engineDiscovery().found;
  const where = `${engineAddress()}${found ? ` (${found.label}, from ${found.from})` : ""}`;
  if (code === "EACCES" || code === "EPERM") {
    return new McpboxError("environment", `no permission to use the Docker engine at ${where}`, {
      hint: "add your user to the docker group (sudo usermod -aG docker $USER, then log in again), or use rootless Docker",
      cause: e,
    });
  }
  if (code === "ENOENT" || code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT") {
    return new McpboxError("environment", `no Docker engine reachable at ${where}`, {
      hint: startHint(process.platform),
      cause: e,
    });
  }
  return new McpboxError("environment", `the Docker engine at ${where} failed: ${messageOf(e)}`, {
    hint: "check that the engine is running: `docker info`",
    cause: e,
  });
}

/**
 * The local socket (or Windows named pipe) dockerode would connect to for the engine found, or undefined when it
 * would reach it another way (tcp, TLS, ssh) or when none was found (docker-modem's own defaults apply then).
 */
export function engineSocket(d: Discovery = engineDiscovery()): string | undefined {
  const host = d.found?.host;
  if (!host) return undefined;
  for (const scheme of ["unix://", "npipe://"]) if (host.startsWith(scheme) && host.length > scheme.length) return host.slice(scheme.length);
  return undefined;
}

/**
 * Whether the engine answers (one round trip): the same error as engine.ts pingEngine when it cannot be reached.
 * `otherwise`: engine.ts pingEngine, for an engine that is not on a local socket (the caller loads it).
 */
export async function pingEngineSocket(otherwise: () => Promise<void>): Promise<void> {
  const socket = engineSocket();
  if (socket === undefined) return otherwise();
  try {
    const r = await get(socket, "/_ping", 4096);
    if (r.status !== 200) throw Object.assign(new Error(`(HTTP code ${r.status}) ${r.body.trim().slice(0, 200)}`), { statusCode: r.status });
  } catch (e) {
    throw engineError(e);
  }
}

/** An image reference as the engine's API takes it in a path: the characters of the reference grammar, nothing else. */
const REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/;

/**
 * The id of the image a reference names in the engine now (`sha256:...`), undefined when it has none by that name;
 * other failures reject. What the catalog cache is keyed on: asked of the engine at every start, never assumed.
 * `otherwise`: the same through dockerode (an engine not on a local socket, a reference this path does not take).
 */
export async function imageIdOf(ref: string, otherwise: (ref: string) => Promise<string | undefined>): Promise<string | undefined> {
  const socket = engineSocket();
  if (socket === undefined || !REFERENCE.test(ref) || ref.includes("..")) return otherwise(ref);
  const r = await get(socket, `/images/${ref}/json`, 8 << 20);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw Object.assign(new Error(`(HTTP code ${r.status}) ${r.body.trim().slice(0, 200)}`), { statusCode: r.status });
  const id = (JSON.parse(r.body) as { Id?: unknown } | null)?.Id;
  if (typeof id !== "string" || id === "") throw new Error(`the engine's answer for image ${ref} has no id`);
  return id;
}

// node:http when first asked for (the bundle takes builtins through require: an import would load it with this file)
const load = createRequire(import.meta.url);

/** One GET on the engine's socket (a connection of its own, closed after the answer); a body over `cap` bytes fails. */
function get(socketPath: string, path: string, cap: number): Promise<{ status: number; body: string }> {
  const { request } = load("node:http") as typeof http;
  return new Promise((resolve, reject) => {
    // servername "": the agent would otherwise work out a TLS server name from the host (net.isIP, whose IPv6 pattern is
    // compiled on first use: ~4 ms of serve's start before initialize is answered, for a unix socket that never has TLS)
    const req = request({ socketPath, path, method: "GET", agent: false, servername: "", headers: { Host: "localhost", Connection: "close" } } as http.RequestOptions, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > cap) return void res.destroy(new Error(`the engine's answer to GET ${path} is larger than ${cap} bytes`));
        chunks.push(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
