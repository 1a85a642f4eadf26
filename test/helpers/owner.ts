/**
 * Files of another user, for tests of ownership checks. Root chowns them itself; another user with Docker access
 * (which is root's power anyway) has the engine chown them, in a throwaway container with no network.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const IMAGE = "node:24-bookworm-slim"; // a base image the global setup makes sure of

const asRoot = () => process.getuid?.() === 0;

/** Runs `command` as root in a container that sees `dir` at /m; fails loudly with the reason. */
function inContainer(dir: string, command: string[], what: string): void {
  const r = spawnSync("docker", ["run", "--rm", "--network", "none", "--user", "0:0", "-v", `${dir}:/m`, IMAGE, ...command], { encoding: "utf8" });
  if (r.status !== 0) {
    throw new Error(`${what}: not root, and the engine could not do it (${(r.stderr || r.error?.message || "").trim()}); run as root or with Docker access`);
  }
}

/** Gives a file or folder (not what a link points to) to `uid`. */
export function chownTo(file: string, uid: number): void {
  if (asRoot()) return fs.lchownSync(file, uid, uid);
  inContainer(path.dirname(file), ["chown", "-h", `${uid}:${uid}`, `/m/${path.basename(file)}`], `giving ${file} to uid ${uid}`);
}

/** Removes a tree that may hold folders of another user (which only their owner, or root, may empty). */
export function removeTree(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch (e) {
    if (asRoot()) throw e;
    inContainer(dir, ["chown", "-R", `${process.getuid!()}:${process.getgid!()}`, "/m"], `taking back ${dir}`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
