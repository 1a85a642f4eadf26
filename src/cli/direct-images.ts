/**
 * The image each server runs in direct mode, for `mcpbox config --mode direct` (the engine look-up belongs to the
 * command; client formats stay text from the resolved config): its own `image`, or for template and Dockerfile servers
 * the content tag `mcpbox/<server>:<hash>` that `mcpbox build` gives it. The hash covers the local ids of the base images, so the
 * engine is asked for them (the same answer `mcpbox build` gets).
 */
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { planBuild } from "../images/plan.ts";
import { connectEngine, engine } from "../docker/engine.ts";
import { imageExists } from "../docker/images.ts";
import { statusOf } from "../docker/_http.ts";

export interface DirectImages {
  imageOf: (server: ResolvedServer) => string;
  /** content tags not built yet */
  missing: string[];
}

export async function directImages(config: ResolvedConfig): Promise<DirectImages> {
  const built = config.servers.filter((s) => s.source.kind === "template" || s.source.kind === "build");
  const tags = new Map<string, string>();
  const missing: string[] = [];
  if (built.length > 0) {
    const docker = engine();
    await connectEngine(docker);
    for (const s of built) {
      const plan = await planBuild(s, config, { imageId: (ref) => localImageId(ref) });
      tags.set(s.name, plan.tag);
      if (!(await imageExists(docker, plan.tag))) missing.push(plan.tag);
    }
  }
  return { imageOf: (s) => (s.source.kind === "image" ? s.source.image : (tags.get(s.name) ?? "")), missing };
}

async function localImageId(ref: string): Promise<string | undefined> {
  try {
    return ((await engine().getImage(ref).inspect()) as { Id: string }).Id;
  } catch (e) {
    if (statusOf(e) === 404) return undefined;
    throw e;
  }
}
