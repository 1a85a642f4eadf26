/** Small image queries the gateway and build need. */
import type Docker from "dockerode";
import { statusOf } from "./_http.ts";

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
