/**
 * Build contexts are small lists of files held in memory: the same list is hashed for the tag and packed into the
 * tar stream the engine reads, so what is hashed is exactly what is built. A folder is sent as `docker build` sends
 * it: regular files, and symlinks as links (never followed) that must point inside the folder (see guard.ts).
 * A hard link is the file it names (one inode, no path to judge): sent as a regular file, as docker build does.
 */
import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { linkStaysInside, isInside, notRegular, outsideLink, readInside, readRegular, specialKind } from "./guard.ts";

export interface ContextFile {
  /** path inside the build context, with "/" */
  readonly name: string;
  /** empty for a link */
  readonly data: Buffer;
  readonly mode: number;
  /** set for a symlink: where it points (relative, inside the folder) */
  readonly link?: string;
}

/** Folders never worth sending: dependencies and caches are rebuilt inside the image. */
const SKIPPED = new Set([".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache", ".ruff_cache"]);

export function textFile(name: string, text: string, mode = 0o644): ContextFile {
  return { name, data: Buffer.from(text), mode };
}

/** A file the user named (the CA bundle): links followed, but only a regular file is read. */
export function fileAt(name: string, source: string, where: string = source): ContextFile {
  return { name, ...readRegular(source, where, true) };
}

export interface FolderOptions {
  /** names the folder in errors: "<config file>: servers.<name>.build.context" */
  readonly where: string;
  readonly ignored?: (rel: string) => boolean;
  /** folder names left out; a user's build context leaves none out (only its .dockerignore trims it) */
  readonly skipped?: ReadonlySet<string>;
}

/**
 * Every regular file and symlink under dir (a real path), named prefix + relative path, minus what `ignored` and
 * `skipped` say. A link pointing outside dir, and anything that is not a file, folder or link, is refused.
 */
export function folderFiles(dir: string, prefix: string, opts: FolderOptions): ContextFile[] {
  const { where, ignored = () => false, skipped = SKIPPED } = opts;
  const files: ContextFile[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (skipped.has(e.name) || ignored(child)) continue;
      const abs = path.join(dir, child);
      const st = fs.lstatSync(abs);
      if (st.isDirectory()) walk(child);
      else if (st.isSymbolicLink()) files.push(linkEntry(dir, child, prefix + child, where));
      else if (st.isFile()) files.push({ name: prefix + child, ...readRegular(abs, where, false) });
      else throw notRegular(where, child, specialKind(st) ?? "not a regular file");
    }
  };
  walk("");
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A link kept as a link: its text must stay inside, and so must where it really leads when that exists (chains). */
function linkEntry(dir: string, rel: string, name: string, where: string): ContextFile {
  const abs = path.join(dir, rel);
  const target = fs.readlinkSync(abs);
  const fix = "copy the file into the folder instead of linking to it, or remove the link";
  if (!linkStaysInside(rel, target)) throw outsideLink(where, dir, rel, target, fix);
  let real: string | undefined;
  try {
    real = fs.realpathSync(abs);
  } catch {
    real = undefined; // dangling: inside the image it points at the image's own files
  }
  if (real !== undefined && !isInside(dir, real)) throw outsideLink(where, dir, rel, `${target} (${real})`, fix);
  return { name, data: Buffer.alloc(0), mode: 0o777, link: target };
}

/** A `.dockerignore` as a predicate (patterns, `!` exceptions, the last match wins); dir is a real path. */
export function dockerignore(dir: string, where: string = dir): (rel: string) => boolean {
  const file = readInside(dir, ".dockerignore", where);
  if (file === undefined) return () => false;
  const rules = file.data
    .toString("utf8")
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
