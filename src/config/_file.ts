/**
 * Finding the config file (-c, or sandbox.config.{ts,mts,js,mjs,json} from the working folder upward), checking it is
 * the user's own and importing it: load.ts's steps 1 and 2. Imports no zod (validate loads the schema only for a
 * config the fast parser gives up on).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { McpboxError, isMcpboxError, messageOf } from "../errors.ts";
import { importConfigModule } from "./_import.ts";
import { discover, type DiscoverFs } from "./_discover.ts";
import { assertTrusted } from "./_trust.ts";

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
