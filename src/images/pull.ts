/**
 * An `image:` server's image, made present: pulled when the engine lacks it (or when asked to refresh), with a few
 * progress lines, and a failure that names the server, the image and the fix (SPEC 4.2). serve, tools and build
 * all come through here, so they say the same thing.
 */
import type { Docker } from "../docker/engine.ts";
import { imageExists, pullFromRegistry, RegistryError } from "../docker/images.ts";
import { engineError } from "../docker/engine.ts";
import { pullFailure } from "./pull-failure.ts";
import { PullProgress } from "./pull-progress.ts";

export interface PullResult {
  server: string;
  image: string;
  /** false: the engine had it already */
  pulled: boolean;
  seconds: number;
}

export interface PullOptions {
  /** pull even when present (`mcpbox build --pull`) */
  refresh?: boolean;
  onProgress?: (line: string) => void;
}

export async function ensurePulled(docker: Docker, server: string, image: string, opts: PullOptions = {}): Promise<PullResult> {
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 10) / 100;
  const present = await imageExists(docker, image).catch((e: unknown) => {
    throw engineError(e);
  });
  if (present && !opts.refresh) return { server, image, pulled: false, seconds: seconds() };
  const progress = new PullProgress();
  opts.onProgress?.(`pulling ${image}`);
  try {
    await pullFromRegistry(docker, image, (m) => {
      const line = progress.feed(m);
      if (line !== undefined) opts.onProgress?.(line);
    });
  } catch (e) {
    if (!(e instanceof RegistryError)) throw e; // the engine itself is gone: an environment error
    if (present) {
      // --pull could not refresh, but the local copy still runs
      opts.onProgress?.(`could not refresh ${image} (${e.message}); using the local image`);
      return { server, image, pulled: false, seconds: seconds() };
    }
    throw pullFailure(server, image, e.message, e);
  }
  return { server, image, pulled: true, seconds: seconds() };
}
