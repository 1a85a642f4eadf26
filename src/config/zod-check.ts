/**
 * Step 3 with zod: the schema's parse and its problems, and the policy checks on every server that parses, for a
 * config the fast parser (_fast-parse.ts) gives up on. Loaded only then (quick-check.ts): zod and the schema are most
 * of a start's cost (issue 15).
 */
import { config as zodConfig } from "zod";
import { Defaults, Server, UserConfigSchema } from "./schema.ts";
import { SOURCE_KEYS } from "./_rules.ts";
import { problemsFromZod } from "./_zod-problems.ts";
import { checkConfig, realEnv, type CheckEnv } from "./checks.ts";
import { dotted, type Problem } from "./problems.ts";
import { controlCharacterProblems } from "./_strings.ts";
import { fastParseConfig } from "./_fast-parse.ts";
import { checkedOf, type CheckedConfig } from "./_checked.ts";

/**
 * For a process that parses one config (quick-check.ts calls it before the schema's parse): zod's compiled fast path
 * (a new Function per object schema) costs more to make than it saves, 25 -> 15 ms for 20 servers (issue 15). Only a
 * config zod refuses gets here (the fast parser accepts exactly what zod accepts: fast-parse.test.ts), and a command
 * then stops, so serve's SDK keeps the compiled path for its per-message parsing.
 */
export const jitlessZod = () => zodConfig({ jitless: true });

/** Step 3: schema and policy checks; every problem at once. */
export function checkRawConfig(raw: unknown, file: string, env: CheckEnv = realEnv()): CheckedConfig {
  // a config the schema accepts: the fast parser's copy is the one zod would make (fast-parse.test.ts)
  const fast = fastParseConfig(raw);
  if (fast) return checkedOf(fast, file, env);
  const result = UserConfigSchema.safeParse(raw, { reportInput: true });
  // what is checked is what is used: the parsed copy (a getter in the config cannot answer differently twice)
  const controls = controlCharacterProblems(result.success ? result.data : raw);
  if (!result.success) {
    // a string refused for its control characters is not reported a second time for its shape
    const refused = new Set(controls.map((p) => dotted(p.path)));
    const problems = problemsFromZod(UserConfigSchema, result.error).filter((p) => !refused.has(dotted(p.path)));
    return { file, problems: [...controls, ...problems, ...checkValidParts(raw, file, env)], parsed: undefined };
  }
  return { file, problems: [...controls, ...checkConfig(result.data, file, env)], parsed: result.data };
}

/** When the schema fails, the policy checks still run on every server that parses, so all problems show at once. */
function checkValidParts(raw: unknown, file: string, env: CheckEnv): Problem[] {
  if (!raw || typeof raw !== "object") return [];
  const { servers, defaults } = raw as { servers?: unknown; defaults?: unknown };
  const d = Defaults.safeParse(defaults ?? {});
  if (!servers || typeof servers !== "object" || !d.success) return [];
  const valid = Object.fromEntries(
    Object.entries(servers).flatMap(([name, s]) => {
      let parsed = Server.safeParse(s);
      if (!parsed.success && s && typeof s === "object") {
        // drop the keys that are wrong and check what is left
        const bad = new Set(parsed.error.issues.flatMap((i) => (i.code === "unrecognized_keys" ? i.keys : [i.path[0]])));
        const kept = Object.entries(s).filter(([k]) => !bad.has(k));
        parsed = Server.safeParse(Object.fromEntries(kept));
        // a missing or half-given source must not hide the policy errors: check the policy on a stand-in source
        if (!parsed.success) parsed = Server.safeParse({ ...Object.fromEntries(kept.filter(([k]) => !SOURCE_ONLY.has(k))), ...STAND_IN });
      }
      return parsed.success ? [[name, parsed.data]] : [];
    }),
  );
  const problems = checkConfig({ defaults: d.data, servers: valid }, file, env);
  // what a check says about the stand-in source is not about the user's config
  return problems.filter((p) => !(p.path[0] === "servers" && SOURCE_ONLY.has(String(p.path[2]))));
}

const SOURCE_ONLY = new Set<string>([...SOURCE_KEYS, "package", "languages", "maxOutputBytes", "pool"]);
const STAND_IN = { image: "mcpbox.invalid/stand-in-source" };
