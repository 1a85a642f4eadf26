/**
 * The connection to the Docker engine. dockerode is imported here and in the docker/ folder only. DOCKER_HOST and
 * the usual client variables are honoured by docker-modem. An unreachable engine is an environment error (exit 3).
 */
import Docker from "dockerode";
import { McpboxError, messageOf } from "../errors.ts";
import { discoverEngine, dockerodeOptions, hostDiscoveryEnv, startHint, type Discovery } from "./discover.ts";

export type { default as Docker } from "dockerode";

let shared: Docker | undefined;
let discovery: Discovery | undefined;

/** One client per process, created on first use, to the engine discover.ts finds (DOCKER_HOST first). */
export function engine(): Docker {
  shared ??= new Docker(dockerodeOptions(engineDiscovery().found));
  return shared;
}

/** Which engine this process uses and where it was found (looked up once). */
export function engineDiscovery(): Discovery {
  discovery ??= discoverEngine(hostDiscoveryEnv());
  return discovery;
}

export function engineAddress(): string {
  // none found: where docker-modem then connects (the named pipe on Windows)
  return process.env.DOCKER_HOST || engineDiscovery().found?.host || (process.platform === "win32" ? "npipe:////./pipe/docker_engine" : "unix:///var/run/docker.sock");
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
