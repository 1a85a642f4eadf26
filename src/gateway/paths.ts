/**
 * The path-argument guard (SPEC 4.4): string arguments that name a path must stay inside the server's mount targets
 * (or its private /tmp), judged in the container's posix terms after `..` is resolved. Pure.
 */
import path from "node:path";

const posix = path.posix;

/** Word parts of argument names that name a path. */
const PATH_WORDS = new Set([
  "path", "paths", "pathname", "file", "files", "filename", "filepath", "dir", "dirs", "dirname",
  "directory", "directories", "root", "roots", "folder", "folders",
]);

/** The container's own scratch space: a tmpfs that holds nothing from the host. */
export const SCRATCH = "/tmp";

const judged = new Map<string, boolean>();

/** true for `path`, `file_path`, `sourceDir`, `root-directory`, ...: any word part names a path. */
export function looksLikePathArgument(name: string): boolean {
  let verdict = judged.get(name);
  if (verdict === undefined) {
    verdict = namesPath(name);
    if (judged.size < 10_000) judged.set(name, verdict); // argument names come from tool schemas: a few dozen
  }
  return verdict;
}

function namesPath(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((w) => PATH_WORDS.has(w)) || PATH_WORDS.has(name.toLowerCase());
}

/** Is `p` (absolute, normalized) equal to or inside `root`? */
export function isInside(p: string, root: string): boolean {
  const r = root === "/" ? "/" : root.replace(/\/+$/, "");
  return p === r || p.startsWith(r === "/" ? "/" : `${r}/`);
}

/** Where a path value lands in the container, or undefined when it cannot be judged (home-relative). */
export function containerPath(value: string, base: string): string | undefined {
  let v = value;
  if (v.startsWith("file://")) {
    try {
      v = decodeURIComponent(new URL(v).pathname);
    } catch {
      return undefined;
    }
  }
  if (v.startsWith("~")) return undefined;
  return posix.normalize(posix.isAbsolute(v) ? v : posix.join(base, v));
}

export type PathVerdict = { ok: true } | { ok: false; argument: string; value: string; reason: string };

/**
 * Checks every path-like argument (strings and arrays of strings). Relative values must stay inside the mount
 * they are relative to; absolute ones inside one of the allowed roots.
 */
export function checkPathArguments(
  args: Readonly<Record<string, unknown>>,
  mountTargets: readonly string[],
  extraNames: readonly string[] = [],
): PathVerdict {
  const roots = [...mountTargets, SCRATCH];
  for (const [name, value] of Object.entries(args)) {
    if (!extraNames.includes(name) && !looksLikePathArgument(name)) continue;
    const values = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
    for (const v of values) {
      if (typeof v !== "string" || v === "") continue;
      if (!allowed(v, roots)) {
        return {
          ok: false,
          argument: name,
          value: v,
          reason: `argument "${name}" (${v}) is outside the folders this server may use (${mountTargets.join(", ") || "no mounts"})`,
        };
      }
    }
  }
  return { ok: true };
}

function allowed(value: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const p = containerPath(value, root);
    return p !== undefined && isInside(p, root);
  });
}
