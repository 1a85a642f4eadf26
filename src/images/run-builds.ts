/**
 * `mcpbox build` without the terminal: builds the chosen servers one after another (two cores; the engine
 * parallelises inside a build anyway), pulls the missing images of `image:` servers, keeps going after a failure,
 * and reports every failure at the end.
 */
import type { Docker } from "../docker/engine.ts";
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { McpboxError } from "../errors.ts";
import { buildServer, type BuildOptions, type BuildResult } from "./builder.ts";
import { ensurePulled, type PullResult } from "./pull.ts";

export type BuildOutcome = BuildResult | PullResult | { server: string; error: string };

export async function runBuilds(
  docker: Docker,
  config: ResolvedConfig,
  servers: readonly ResolvedServer[],
  opts: BuildOptions,
): Promise<{ outcomes: BuildOutcome[]; error: McpboxError | undefined }> {
  const outcomes: BuildOutcome[] = [];
  const failures: McpboxError[] = [];
  for (const server of servers) {
    try {
      outcomes.push(server.source.kind === "image" ? await pullServer(docker, server.name, server.source.image, opts) : await buildServer(docker, config, server, opts));
    } catch (e) {
      if (!(e instanceof McpboxError) || e.kind !== "failed") throw e; // config or engine errors stop everything
      failures.push(e);
      outcomes.push({ server: server.name, error: e.message });
    }
  }
  return { outcomes, error: combine(failures) };
}

function combine(failures: McpboxError[]): McpboxError | undefined {
  if (failures.length <= 1) return failures[0];
  return new McpboxError("failed", `${failures.length} builds failed`, {
    details: failures.flatMap((f) => [f.message, ...f.details.map((d) => `  ${d}`)]),
    hint: failures[0]!.hint,
  });
}

async function pullServer(docker: Docker, server: string, image: string, opts: BuildOptions): Promise<PullResult> {
  const emit = opts.onEvent ?? (() => {});
  emit({ type: "pulling", server, image });
  try {
    const result = await ensurePulled(docker, server, image, {
      refresh: opts.pull === true,
      onProgress: (line) => emit({ type: "pull-progress", server, line }),
    });
    emit({ type: "pulled", server, result });
    return result;
  } catch (e) {
    if (e instanceof McpboxError) emit({ type: "failed", server, error: e });
    throw e;
  }
}
