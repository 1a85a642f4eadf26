/** Small image queries the gateway and build need. */
import type Docker from "dockerode";

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

/** The HTTP status docker-modem puts on engine errors, if any. */
export function statusOf(e: unknown): number | undefined {
  const code = (e as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === "number" ? code : undefined;
}
