/**
 * A clone may sit in a private folder (`mktemp -d` makes it 0700): another user (a test's `nobody`, a container's
 * uid 1000 reading a single file) cannot reach files in it. These helpers put a copy where every user can read it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";

/** A fresh folder every user may enter and read (0755), removed when the calling test finishes. */
export function publicDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcpbox-public-${prefix}-`));
  fs.chmodSync(dir, 0o755);
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The file (a binary keeps its mode) in a public folder: a hard link when the file system allows, else a copy. */
export function publicCopy(file: string): string {
  const to = path.join(publicDir(path.basename(file)), path.basename(file));
  try {
    fs.linkSync(file, to);
  } catch {
    fs.copyFileSync(file, to);
  }
  fs.chmodSync(to, fs.statSync(file).mode & 0o755);
  return to;
}
