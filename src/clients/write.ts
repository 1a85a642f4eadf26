/**
 * Writing a client's file safely: nothing happens when the text is unchanged; otherwise a timestamped backup of
 * the old file first, then a temporary file in the same folder renamed over it (atomic on one file system).
 * A symlinked file (dotfile managers) is written through to its target, except out of a repository: a file inside a
 * git working tree (a cloned project's `.cursor/mcp.json`) is written only where it resolves inside that tree, so a
 * link the repository planted (to the user's global client file, or anywhere else) is refused (clientFileProblem);
 * `init --from` reads a client file under the same rule (assertClientFileToRead).
 */
import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { McpboxError } from "../errors.ts";

export interface WriteResult {
  file: string;
  changed: boolean;
  backup: string | undefined;
}

/** The file's text, or undefined when it does not exist. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

export async function writeIfChanged(
  file: string,
  before: string | undefined,
  after: string,
  now: Date = new Date(),
): Promise<WriteResult> {
  if (before === after) return { file, changed: false, backup: undefined };
  assertClientFile(file);
  const target = await realTarget(file);
  const backup = before === undefined ? undefined : await backupOf(target, now);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const mode = before === undefined ? 0o644 : (await fs.stat(target)).mode & 0o777;
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.mcpbox-${randomBytes(4).toString("hex")}.tmp`);
  try {
    const handle = await fs.open(temp, "wx", mode);
    try {
      await handle.chmod(mode);
      await handle.writeFile(after, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
  } catch (e) {
    await fs.rm(temp, { force: true });
    throw e;
  }
  return { file, changed: true, backup };
}

/** `<file>.mcpbox-backup-<YYYYMMDD-HHMMSS>` (local time), never overwriting an earlier backup. */
async function backupOf(file: string, now: Date): Promise<string> {
  const base = `${file}.mcpbox-backup-${stamp(now)}`;
  for (let i = 0; ; i++) {
    const name = i === 0 ? base : `${base}-${i}`;
    try {
      await fs.copyFile(file, name, fs.constants.COPYFILE_EXCL);
      return name;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
}

export function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

async function realTarget(file: string): Promise<string> {
  try {
    return await fs.realpath(file);
  } catch {
    return file;
  }
}

/**
 * Why `file` must not be read or written as a client file, or undefined: it lies in a git working tree (the nearest
 * folder above it holding `.git`) but resolves, through a link to the file or to a folder on the way, outside it. A
 * repository controls its links (git makes them as committed); a user's own link to a dotfile in the home is not in
 * a repository and is followed as before.
 */
export function clientFileProblem(file: string): string | undefined {
  const escape = repositoryEscape(file);
  return escape && `${file} lies in the repository ${escape.repo} but leads (through a link) to ${escape.real}, outside it`;
}

function repositoryEscape(file: string): { repo: string; real: string } | undefined {
  const given = path.resolve(file);
  let repo: string | undefined;
  for (let d = path.dirname(given); ; d = path.dirname(d)) {
    if (fsSync.existsSync(path.join(d, ".git")) || isLink(path.join(d, ".git"))) {
      repo = d;
      break;
    }
    if (path.dirname(d) === d) return undefined;
  }
  const root = realOr(repo);
  const real = resolvedPath(given);
  const rel = path.relative(root, real);
  if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return undefined;
  return { repo, real };
}

/** Throws the usage error for a client file that clientFileProblem refuses. */
export function assertClientFile(file: string): void {
  const problem = clientFileProblem(file);
  if (problem) {
    throw new McpboxError("config", `refused: ${problem}; a link a repository holds is not written through`, {
      hint: "if that file is the one you mean, pass it itself with --file",
    });
  }
}

/**
 * The same refusal for a client file about to be read (`init --from`): a project's `.cursor/mcp.json` that is a link
 * to the user's global file (or anywhere out of the repository) would turn that file into the project's config.
 */
export function assertClientFileToRead(file: string): void {
  const escape = repositoryEscape(file);
  if (escape) {
    throw new McpboxError(
      "config",
      `refused: ${file} lies in the repository ${escape.repo} but leads (through a link) to ${escape.real}, outside it; a link a repository holds is not read through`,
      { hint: `if ${escape.real} is the file you mean, pass it itself: mcpbox init --from ${escape.real}` },
    );
  }
}

const isLink = (p: string) => {
  try {
    return fsSync.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

const realOr = (p: string) => {
  try {
    return fsSync.realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * Where a path leads: its longest existing prefix resolved, the rest appended. A dangling link is followed to where
 * it points (opening it to create would create that).
 */
function resolvedPath(p: string, depth = 0): string {
  try {
    return fsSync.realpathSync(p);
  } catch {
    if (depth < 40 && isLink(p)) {
      const to = fsSync.readlinkSync(p);
      return resolvedPath(path.resolve(resolvedPath(path.dirname(p), depth + 1), to), depth + 1);
    }
    const parent = path.dirname(p);
    return parent === p ? p : path.join(resolvedPath(parent, depth + 1), path.basename(p));
  }
}
