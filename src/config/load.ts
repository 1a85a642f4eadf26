/**
 * Finding and loading sandbox.config.{ts,mts,js,mjs,json}: discover → import → parse → check → resolve.
 * Never prints, never exits: it returns { file, config, warnings } or throws an McpboxError naming the file.
 * zod is not loaded for a config the fast parser accepts (quick-check.ts; zod-check.ts otherwise).
 */
import { McpboxError } from "../errors.ts";
import { errorsOf, formatProblem, warningsOf, type Problem } from "./problems.ts";
import { resolveConfig, type ResolvedConfig } from "./resolve.ts";
import { displayPath, loadConfigFile, type LoadOptions } from "./_file.ts";
import { checkRawConfigQuickly } from "./quick-check.ts";

export { CONFIG_NAMES, displayPath, fileUrl, findConfigFile, loadConfigFile, type LoadedFile, type LoadOptions } from "./_file.ts";
export type { CheckedConfig } from "./_checked.ts";

export interface LoadedConfig {
  file: string;
  config: ResolvedConfig;
  warnings: Problem[];
}

/** All steps: the resolved config, or an McpboxError listing every error as `<file>: <path>: <message>`. */
export async function loadConfig(options: LoadOptions = {}): Promise<LoadedConfig> {
  const { file, raw } = await loadConfigFile(options);
  const checked = await checkRawConfigQuickly(raw, file);
  const errors = errorsOf(checked.problems);
  if (errors.length > 0 || !checked.parsed) {
    const shown = displayPath(file, options.cwd);
    throw new McpboxError("config", `${shown} has ${errors.length} problem${errors.length === 1 ? "" : "s"}`, {
      details: errors.map((p) => formatProblem(shown, p)),
      hint: "run `mcpbox validate` to see them with warnings",
    });
  }
  return { file, config: resolveConfig(checked.parsed, file), warnings: warningsOf(checked.problems) };
}

