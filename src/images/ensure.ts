/**
 * What the gateway calls before starting containers (SPEC 4.2): the image to run for each server, building the
 * template and Dockerfile images that are missing and pulling the missing images of `image:` servers, as
 * `mcpbox build` would.
 */
import type { Docker } from "../docker/engine.ts";
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { buildServer, planFor } from "./builder.ts";
import { describeEvent } from "./describe.ts";
import { ensurePulled } from "./pull.ts";
import { pick } from "./select.ts";

export interface EnsureOptions {
  /** one human line per build event, without the server's name (given second; the gateway prefixes it) */
  onProgress?: (line: string, server: string) => void;
}

/** server name → image reference to run; builtin servers are skipped. */
export async function ensureImages(
  docker: Docker,
  config: ResolvedConfig,
  serverNames: readonly string[],
  opts: EnsureOptions = {},
): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  for (const server of pick(config, serverNames)) {
    const src = server.source;
    if (src.kind === "builtin") continue;
    if (src.kind === "image") {
      await ensurePulled(docker, server.name, src.image, { onProgress: (line) => opts.onProgress?.(line, server.name) });
      refs.set(server.name, src.image);
      continue;
    }
    const result = await buildServer(docker, config, server, {
      onEvent: (e) => {
        const line = describeEvent(e, { server: false });
        if (line !== undefined) opts.onProgress?.(line, server.name);
      },
    });
    refs.set(server.name, result.tag);
  }
  return refs;
}

/** The image a server runs, without building: its content tag (which may not exist yet) or its `image`. */
export async function imageRefFor(docker: Docker, config: ResolvedConfig, server: ResolvedServer): Promise<string | undefined> {
  const src = server.source;
  if (src.kind === "image") return src.image;
  if (src.kind === "builtin") return undefined;
  return (await planFor(docker, config, server)).tag;
}
