/**
 * Which egress image this mcpbox makes (SPEC 10): from a Linux single executable (./image.ts), or, when there is none
 * (the npm package; a macOS or Windows executable without `mcpbox-linux-<arch>` beside it), from mcpbox's program as
 * JavaScript on the node base image (./bundle-image.ts).
 */
import { isSea, selfCommand } from "../assets.ts";
import type { Docker } from "../docker/engine.ts";
import { bundleProgram, ensureProgramEgressImage, type Program } from "./bundle-image.ts";
import { ensureEgressImage } from "./image.ts";

/** Tests only: a Linux executable makes the image from its embedded program, as a macOS or Windows one does. */
export const TEST_FROM_PROGRAM_ENV = "MCPBOX_TEST_EGRESS_FROM_PROGRAM";

/** The egress image's tag, built when missing. `linuxBinary` names the Linux executable (or throws what is missing). */
export async function egressImage(docker: Docker, linuxBinary: () => string, nodeBase: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const bundle = npmBundleOf(isSea(), selfCommand());
  if (bundle) return ensureProgramEgressImage(docker, bundleProgram(bundle), nodeBase);
  if (isSea() && (process.platform !== "linux" || env[TEST_FROM_PROGRAM_ENV] === "1")) {
    const beside = env[TEST_FROM_PROGRAM_ENV] === "1" ? undefined : tryOrUndefined(linuxBinary);
    return beside ? ensureEgressImage(docker, beside) : ensureProgramEgressImage(docker, await seaProgram(), nodeBase);
  }
  return ensureEgressImage(docker, linuxBinary());
}

/** The bundle file when this mcpbox is the npm package's (its self command is a Node and a .mjs), else undefined. */
export function npmBundleOf(sea: boolean, self: readonly string[]): string | undefined {
  const file = self[1];
  return !sea && file !== undefined && file.endsWith(".mjs") ? file : undefined;
}

/**
 * The program the single executable embeds (scripts/build.mjs: `mcpbox/manifest.json` and `mcpbox/app/<file>`), read
 * from the executable itself, not from its extracted copy in the cache (JavaScript is UTF-8: the text keeps every byte).
 */
async function seaProgram(): Promise<Program> {
  const sea = (await import("node:sea")) as typeof import("node:sea");
  const manifest = JSON.parse(sea.getAsset("mcpbox/manifest.json", "utf8") as string) as { entry: string; files: string[] };
  return { entry: manifest.entry, files: manifest.files.map((f) => ({ path: f, text: sea.getAsset(`mcpbox/app/${f}`, "utf8") as string })) };
}

function tryOrUndefined(f: () => string): string | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
