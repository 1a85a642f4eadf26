/**
 * validate's check of a loaded config without zod: the fast parser (_fast-parse.ts, generated from the schema)
 * parses a config the schema accepts into the copy zod would make, and the policy checks run on it; a config it gives
 * up on goes to zod-check.ts's checkRawConfig, which loads the schema and reports every problem as before. Loading zod and
 * building the schema were ~60% of validate's start (issue 15).
 */
import { realEnv, type CheckEnv } from "./checks.ts";
import { fastParseConfig } from "./_fast-parse.ts";
import { checkedOf, type CheckedConfig } from "./_checked.ts";

/** checkRawConfig's answer; zod is loaded only for a config the fast parser gives up on. */
export async function checkRawConfigQuickly(raw: unknown, file: string, env: CheckEnv = realEnv()): Promise<CheckedConfig> {
  const fast = fastParseConfig(raw);
  if (fast) return checkedOf(fast, file, env);
  const { checkRawConfig, jitlessZod } = await import("./zod-check.ts");
  jitlessZod();
  return checkRawConfig(raw, file, env);
}
