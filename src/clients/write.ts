/**
 * Writing a client's file safely: nothing happens when the text is unchanged; otherwise a timestamped backup of
 * the old file first, then a temporary file in the same folder renamed over it (atomic on one file system).
 * A symlinked file (dotfile managers) is written through to its target.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { randomBytes } from "node:crypto";

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
