/** Small image queries the gateway and build need, and the pull of an `image:` server's image. */
import type Docker from "dockerode";
import { messageOf } from "../errors.ts";
import { statusOf } from "./_http.ts";
import { engineError } from "./engine.ts";
import { pullImage, type StreamMessage } from "./image-build.ts";

export { statusOf } from "./_http.ts";

/** True when the engine has an image by this name or id; other engine errors are thrown. */
export async function imageExists(docker: Docker, name: string): Promise<boolean> {
  try {
    await docker.getImage(name).inspect();
    return true;
  } catch (e) {
    if (statusOf(e) === 404) return false;
    throw e;
  }
}

/** A registry's refusal, or the engine's words for why it could not reach one. */
export class RegistryError extends Error {}

/** Pulls through the engine; a registry problem is a RegistryError with the engine's own reason, an unreachable engine an environment error. */
export async function pullFromRegistry(docker: Docker, ref: string, onMessage: (m: StreamMessage) => void): Promise<void> {
  try {
    await pullImage(docker, ref, onMessage);
  } catch (e) {
    throw asRegistryError(e);
  }
}

/** Whether the registry has the image, asked through the engine (its network, its insecure registries) without pulling. */
export async function registryHas(docker: Docker, ref: string): Promise<{ digest: string | undefined }> {
  try {
    const d = (await docker.getImage(ref).distribution()) as { Descriptor?: { digest?: string } };
    return { digest: d.Descriptor?.digest };
  } catch (e) {
    throw asRegistryError(e);
  }
}

function asRegistryError(e: unknown): Error {
  if (isEngineUnreachable(e)) return engineError(e);
  const engineSaid = (e as { json?: { message?: unknown } } | null)?.json?.message;
  return new RegistryError(typeof engineSaid === "string" ? engineSaid : messageOf(e), { cause: e });
}

const isEngineUnreachable = (e: unknown) =>
  statusOf(e) === undefined && ["ENOENT", "ECONNREFUSED", "EACCES", "EPERM"].includes((e as { code?: string } | null)?.code ?? "");
