/**
 * Type-stripped config modules, cached by content in `$MCPBOX_HOME/cache/ts/<sha256>.mjs`: Node's stripper (a
 * WebAssembly build of swc) takes longer to load than the rest of `mcpbox validate`, and a config rarely changes.
 * Stripping only blanks out types, so line and column numbers in errors stay those of the file. A cache that cannot
 * be read or written is skipped, never an error.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { mcpboxHome } from "../home.ts";

export type Strip = (source: string, options: { mode: "strip" }) => string;

export function strippedTypeScript(source: string, strip: Strip, folder = cacheFolder()): string {
  const key = createHash("sha256").update(process.version).update("\0").update(source).digest("hex");
  const file = path.join(folder, `${key}.mjs`);
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    // not cached yet
  }
  const js = withoutExperimentalWarning(() => strip(source, { mode: "strip" })); // throws on enums...: the caller falls back
  writeQuietly(folder, file, js);
  return js;
}

/**
 * Node flags `module.stripTypeScriptTypes` as experimental on stderr, the first time, in the middle of mcpbox's own
 * output: what it does is what Node does to every .ts file it imports, so that line would only be noise.
 */
function withoutExperimentalWarning<T>(run: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === "ExperimentalWarning") return;
    (emitWarning as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return run();
  } finally {
    process.emitWarning = emitWarning;
  }
}

export function cacheFolder(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(mcpboxHome(env), "cache", "ts");
}

/** Written whole under a temporary name, then renamed: a reader never sees half a module. */
function writeQuietly(folder: string, file: string, js: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    fs.writeFileSync(tmp, js, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // the folder itself is unusable: nothing was written
    }
  }
}
