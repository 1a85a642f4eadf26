/**
 * Which egress image this mcpbox makes (SPEC 10): from a Linux single executable (./image.ts), or, run from the npm
 * package, which carries none, from its one-file bundle on the node base image (./bundle-image.ts).
 */
import { isSea, selfCommand } from "../assets.ts";
import type { Docker } from "../docker/engine.ts";
import { ensureBundleEgressImage } from "./bundle-image.ts";
import { ensureEgressImage } from "./image.ts";

/** The egress image's tag, built when missing. `linuxBinary` names the executable (or throws what is missing). */
export async function egressImage(docker: Docker, linuxBinary: () => string, nodeBase: string): Promise<string> {
  const bundle = npmBundleOf(isSea(), selfCommand());
  return bundle ? ensureBundleEgressImage(docker, bundle, nodeBase) : ensureEgressImage(docker, linuxBinary());
}

/** The bundle file when this mcpbox is the npm package's (its self command is a Node and a .mjs), else undefined. */
export function npmBundleOf(sea: boolean, self: readonly string[]): string | undefined {
  const file = self[1];
  return !sea && file !== undefined && file.endsWith(".mjs") ? file : undefined;
}
