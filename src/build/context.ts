/**
 * Build contexts are small lists of files held in memory: the same list is hashed for the tag and packed into the
 * tar stream the engine reads, so what is hashed is exactly what is built.
 */
import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";

export interface ContextFile {
  /** path inside the build context, with "/" */
  readonly name: string;
  readonly data: Buffer;
  readonly mode: number;
}

/** Folders never worth sending: dependencies and caches are rebuilt inside the image. */
const SKIPPED = new Set([".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache", ".ruff_cache"]);

export function textFile(name: string, text: string, mode = 0o644): ContextFile {
  return { name, data: Buffer.from(text), mode };
}

export function fileAt(name: string, source: string): ContextFile {
  const st = fs.statSync(source);
  return { name, data: fs.readFileSync(source), mode: st.mode & 0o111 ? 0o755 : 0o644 };
}

/**
 * Every file under dir (symlinks followed), named prefix + relative path, minus what `ignored` says and, for a
 * package (not a user's build context, which only .dockerignore trims), the SKIPPED folders.
 */
export function folderFiles(
  dir: string,
  prefix: string,
  ignored: (rel: string) => boolean = () => false,
  skipped: ReadonlySet<string> = SKIPPED,
): ContextFile[] {
  const files: ContextFile[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (skipped.has(e.name) || ignored(child)) continue;
      const abs = path.join(dir, child);
      const st = fs.statSync(abs);
      if (st.isDirectory()) walk(child);
      else if (st.isFile()) files.push(fileAt(prefix + child, abs));
    }
  };
  walk("");
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A `.dockerignore` as a predicate (patterns, `!` exceptions, the last match wins). */
export function dockerignore(dir: string): (rel: string) => boolean {
  const file = path.join(dir, ".dockerignore");
  if (!fs.existsSync(file)) return () => false;
  const rules = fs
    .readFileSync(file, "utf8")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => {
      const negate = l.startsWith("!");
      const pattern = path.posix.normalize(negate ? l.slice(1) : l).replace(/^\/+/, "");
      const match = picomatch([pattern, `${pattern}/**`], { dot: true });
      return { negate, match };
    });
  return (rel) => {
    let ignored = false;
    for (const r of rules) if (r.match(rel)) ignored = !r.negate;
    return ignored;
  };
}
