/**
 * Writing files into a user's folder (init) without ever writing through a symbolic link: a link planted in a
 * cloned repository (sandbox.config.ts → ~/.bashrc) must not turn mcpbox into a tool that overwrites its target.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { McpboxError } from "../../errors.ts";

/** True when something (a file, a folder, a link, even a dangling one) is at this path. */
export function occupied(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

function isFolder(file: string): boolean {
  try {
    return fs.lstatSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** Creates the file; false when something is already there (O_EXCL: a link is never followed). */
export function createExclusive(file: string, text: string): boolean {
  try {
    fs.writeFileSync(file, text, { flag: "wx" });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
}

/** Puts a new file at this path: a new temp file renamed over it, so a link there is replaced, not followed. */
export function replaceFile(file: string, text: string): void {
  // a folder there (a repository's) is no file to replace: rename(2) would fail with EISDIR, an internal error
  if (isFolder(file)) {
    throw new McpboxError("failed", `${file} is a folder; mcpbox replaces only a file there`, { hint: `remove ${file} yourself, or run the command in another folder` });
  }
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.mcpbox-${randomBytes(4).toString("hex")}.tmp`);
  try {
    fs.writeFileSync(tmp, text, { flag: "wx", mode: 0o644 });
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** Makes `rel`'s folders under `base`, refusing any that is a link (writing there would land somewhere else). */
export function makeFolders(base: string, rel: string): string {
  let dir = base;
  for (const part of rel.split("/").filter(Boolean)) {
    dir = path.join(dir, part);
    try {
      fs.mkdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const st = fs.lstatSync(dir);
    if (!st.isDirectory()) {
      throw new McpboxError("failed", `${dir} is ${st.isSymbolicLink() ? "a symbolic link" : "not a folder"}; mcpbox does not write through it`, {
        hint: `remove ${dir} and run the command again`,
      });
    }
  }
  return dir;
}
