/** The checks of a config the schema accepted: shared by load.ts (every command) and quick-check.ts (validate). */
import type { ParsedConfig } from "./schema.ts";
import type { Problem } from "./problems.ts";
import { checkConfig, type CheckEnv } from "./checks.ts";
import { controlCharacterProblems } from "./_strings.ts";

export interface CheckedConfig {
  file: string;
  problems: Problem[];
  parsed: ParsedConfig | undefined;
}

/** What is checked is what is used: the parsed copy (a getter in the config cannot answer differently twice). */
export function checkedOf(parsed: ParsedConfig, file: string, env: CheckEnv): CheckedConfig {
  return { file, problems: [...controlCharacterProblems(parsed), ...checkConfig(parsed, file, env)], parsed };
}
