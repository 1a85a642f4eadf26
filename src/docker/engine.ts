/**
 * The connection to the Docker engine. dockerode is imported here and in the docker/ folder only. DOCKER_HOST and
 * the usual client variables are honoured by docker-modem. An unreachable engine is an environment error (exit 3).
 */
import Docker from "dockerode";
import { dockerodeOptions } from "./discover.ts";
import { engineDiscovery, engineError } from "./engine-socket.ts";

export type { default as Docker } from "dockerode";
// where the engine is and what its errors say need no dockerode: serve's start asks them before it is loaded
export { engineAddress, engineDiscovery, engineError } from "./engine-socket.ts";

let shared: Docker | undefined;

/** One client per process, created on first use, to the engine discover.ts finds (DOCKER_HOST first). */
export function engine(): Docker {
  shared ??= new Docker(dockerodeOptions(engineDiscovery().found));
  return shared;
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
