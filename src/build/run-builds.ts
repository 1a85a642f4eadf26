/**
 * `mcpbox build` without the terminal: builds the chosen servers one after another (two cores; the engine
 * parallelises inside a build anyway), keeps going after a failure, and reports every failure at the end.
 */
import type { Docker } from "../docker/engine.ts";
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { McpboxError } from "../errors.ts";
import { buildServer, type BuildOptions, type BuildResult } from "./builder.ts";

export type BuildOutcome = BuildResult | { server: string; error: string };

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
      outcomes.push(await buildServer(docker, config, server, opts));
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
