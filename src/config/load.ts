/**
 * Finding and loading sandbox.config.{ts,mts,js,mjs,json}: discover → import → parse → check → resolve.
 * Never prints, never exits: it returns { file, config, warnings } or throws an McpboxError naming the file.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { McpboxError, isMcpboxError, messageOf } from "../errors.ts";
import { Defaults, SOURCE_KEYS, Server, UserConfigSchema, type ParsedConfig } from "./schema.ts";
import { problemsFromZod } from "./_zod-problems.ts";
import { checkConfig, realEnv, type CheckEnv } from "./checks.ts";
import { dotted, errorsOf, formatProblem, warningsOf, type Problem } from "./problems.ts";
import { resolveConfig, type ResolvedConfig } from "./resolve.ts";
import { importConfigModule } from "./_import.ts";
import { discover, type DiscoverFs } from "./_discover.ts";
import { assertTrusted } from "./_trust.ts";
import { controlCharacterProblems } from "./_strings.ts";

export const CONFIG_NAMES = [
  "sandbox.config.ts",
  "sandbox.config.mts",
  "sandbox.config.js",
  "sandbox.config.mjs",
  "sandbox.config.json",
] as const;

export interface LoadOptions {
  cwd?: string;
  /** -c, --config */
  configPath?: string | undefined;
}

export interface LoadedFile {
  file: string;
  raw: unknown;
}

export interface CheckedConfig {
  file: string;
  problems: Problem[];
  parsed: ParsedConfig | undefined;
}

export interface LoadedConfig {
  file: string;
  config: ResolvedConfig;
  warnings: Problem[];
}

/** Step 1: find the file (-c, or from the working folder upward) and make sure it is the user's own. */
export async function findConfigFile(options: LoadOptions = {}): Promise<string> {
  const cwd = options.cwd ?? process.cwd();
  if (options.configPath !== undefined) {
    const file = path.resolve(cwd, options.configPath);
    if (!fs.existsSync(file)) {
      throw new McpboxError("config", `config file ${options.configPath} does not exist`, {
        hint: "check the path given to -c/--config",
      });
    }
    assertTrusted(file);
    return file;
  }
  const found = discover(cwd, CONFIG_NAMES, realDiscoverFs());
  if (!found.file) {
    const where = found.searched.length === 0 ? cwd : `${found.searched[0]}${found.searched.length > 1 ? ` or a folder above it up to ${found.searched.at(-1)}` : ""}`;
    throw new McpboxError("config", `no sandbox.config.ts found in ${where} (nor .mts, .js, .mjs or .json; the search stops ${found.stop})`, {
      hint: "run `mcpbox init` to create one, or pass -c <path>",
    });
  }
  assertTrusted(found.file);
  return found.file;
}

function realDiscoverFs(): DiscoverFs {
  return {
    uid: process.getuid?.(),
    home: os.homedir(),
    exists: (p) => fs.existsSync(p),
    stat: (p) => {
      try {
        return fs.statSync(p);
      } catch {
        return undefined;
      }
    },
  };
}

/** Step 2: import the module (TypeScript included) and take its default export. */
export async function loadConfigFile(options: LoadOptions = {}): Promise<LoadedFile> {
  const file = await findConfigFile(options);
  const shown = displayPath(file, options.cwd);
  let exported: unknown;
  try {
    exported = await importConfigModule(file);
  } catch (e) {
    if (isMcpboxError(e)) throw e; // a module that is not the user's own: refused as it is
    throw new McpboxError("config", `${shown}: cannot be loaded: ${loadErrorMessage(e, file)}`, {
      hint: "fix the error above; the file must `export default defineConfig({ ... })`",
      cause: e,
    });
  }
  try {
    if (typeof exported === "function") exported = await (exported as () => unknown)();
    exported = await exported;
  } catch (e) {
    throw new McpboxError("config", `${shown}: the config threw an error: ${firstLine(messageOf(e))}`, { cause: e });
  }
  if (exported === undefined || exported === null) {
    throw new McpboxError("config", `${shown}: has no default export`, {
      hint: "end the file with `export default defineConfig({ servers: { ... } })`",
    });
  }
  return { file, raw: exported };
}

/** Step 3: schema and policy checks; every problem at once. */
export function checkRawConfig(raw: unknown, file: string, env: CheckEnv = realEnv()): CheckedConfig {
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

/** All steps: the resolved config, or an McpboxError listing every error as `<file>: <path>: <message>`. */
export async function loadConfig(options: LoadOptions = {}): Promise<LoadedConfig> {
  const { file, raw } = await loadConfigFile(options);
  const checked = checkRawConfig(raw, file);
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

/** The file as the user would type it from the working folder. */
export function displayPath(file: string, cwd: string = process.cwd()): string {
  const rel = path.relative(cwd, file);
  return rel === "" || rel.startsWith("..") ? (rel.split(path.sep).length > 4 ? file : rel || file) : rel;
}

const firstLine = (s: string) => s.split("\n").filter((l) => l.trim() !== "")[0] ?? s;

/** The first line of a load error, led by the line (and column) of a syntax error in the config file. */
function loadErrorMessage(e: unknown, file: string): string {
  const text = messageOf(e);
  const first = firstLine(text).replace(/^ParseError:\s*/, "").trim();
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const at = new RegExp(`${escaped}:(\\d+)(?::(\\d+))?`).exec(`${text}\n${e instanceof SyntaxError ? (e.stack ?? "") : ""}`);
  return at ? `line ${at[1]}${at[2] ? `:${at[2]}` : ""}: ${first}` : first;
}

export const fileUrl = (file: string) => pathToFileURL(file).href;
