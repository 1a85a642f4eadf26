/**
 * Build inputs stay in their folder (SPEC 3): a symlink is judged by where it points, a folder named by the config by
 * where it really is, and files are read only when they are regular files, without ever blocking on a FIFO.
 */
import fs from "node:fs";
import path from "node:path";
import { McpboxError } from "../errors.ts";

/** Pseudo file systems that hold the host's state (environments, memory, devices), never a build input. */
const HOST_STATE = /^\/(proc|sys|dev)(\/|$)/;

/** True when `child` is `parent` or lies under it (absolute, normalized paths). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Pure: a link at `rel` (inside a folder, "/"-separated) pointing at `target` stays inside that folder, by its text. */
export function linkStaysInside(rel: string, target: string): boolean {
  if (target === "" || target.includes("\0") || path.posix.isAbsolute(target)) return false;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(rel), target));
  return joined !== ".." && !joined.startsWith("../");
}

/** What a directory entry that is neither a file, a folder nor a link is, for an error message. */
export function specialKind(st: fs.Stats): string | undefined {
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isFile() || st.isDirectory() || st.isSymbolicLink()) return undefined;
  return "not a regular file";
}

/**
 * The real path of a folder or file the config names. Inside the config's folder (by its text) it must really be
 * there, so a repository cannot turn `./server` into a link to the home folder; named outside it, the last step may
 * not be a link that leaves the folder holding it. /proc, /sys and /dev are refused whatever the path.
 */
export function realSource(configDir: string, abs: string, where: string): string {
  const real = realpathOr(abs);
  if (real === undefined) throw new McpboxError("config", `${where}: ${abs} does not exist`);
  const anchor = isInside(configDir, abs) ? configDir : path.dirname(abs);
  const realAnchor = realpathOr(anchor) ?? anchor;
  const hostState = HOST_STATE.test(real) || HOST_STATE.test(abs);
  if (!isInside(realAnchor, real) || hostState) {
    const why = hostState ? `is in /proc, /sys or /dev (it leads to ${real})` : `leads to ${real}, outside ${anchor}`;
    throw new McpboxError("config", `${where}: ${abs} ${why}`, {
      hint: hostState
        ? "a build input is never read from /proc, /sys or /dev"
        : "a symlink on the way leaves the folder: name the real path in the config, or copy it into the folder",
    });
  }
  return real;
}

/** Reads a regular file: opened non-blocking (a FIFO cannot hang the build) and checked on the open descriptor. */
export function readRegular(abs: string, where: string, follow: boolean): { data: Buffer; mode: number } {
  const st = statOr(abs, follow);
  const kind = st && specialKind(st);
  if (kind) throw notRegular(where, abs, kind);
  const noFollow = follow ? 0 : (fs.constants.O_NOFOLLOW ?? 0);
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | noFollow);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ELOOP" ? "is a symlink" : code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? e})`;
    throw new McpboxError("config", `${where}: ${abs} ${why}`, { cause: e });
  }
  try {
    const fst = fs.fstatSync(fd);
    if (!fst.isFile()) throw notRegular(where, abs, specialKind(fst) ?? "a folder");
    return { data: fs.readFileSync(fd), mode: fst.mode & 0o111 ? 0o755 : 0o644 };
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads `rel` inside `root` (a real path), following a link only while it stays inside. */
export function readInside(root: string, rel: string, where: string): { data: Buffer; mode: number } | undefined {
  const abs = path.join(root, rel);
  const real = realpathOr(abs);
  if (real === undefined) return undefined;
  if (!isInside(root, real) || HOST_STATE.test(real)) {
    throw new McpboxError("config", `${where}: ${rel} is a symlink to ${fs.readlinkSync(abs)}, outside ${root}`, {
      hint: "a build reads only what is inside its folder: replace the link with the file itself",
    });
  }
  return readRegular(real, where, false);
}

export const outsideLink = (where: string, folder: string, rel: string, target: string, fix: string) =>
  new McpboxError("config", `${where}: ${rel} is a symlink to ${target}, outside ${folder}`, {
    hint: `a build sends only what is inside its folder (symlinks as links, as docker build does): ${fix}`,
  });

export const notRegular = (where: string, file: string, kind: string) =>
  new McpboxError("config", `${where}: ${file} is ${kind}; a build sends only regular files, folders and symlinks`, {
    hint: "remove it (or, in a build context, list it in .dockerignore)",
  });

function realpathOr(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

function statOr(p: string, follow: boolean): fs.Stats | undefined {
  try {
    return follow ? fs.statSync(p) : fs.lstatSync(p);
  } catch {
    return undefined;
  }
}
