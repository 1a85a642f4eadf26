/**
 * The bearer token of `serve --http` (SPEC 4.9): 32 random bytes (base64url), made on first use, in a 0600 file of
 * this user in the private home. A file that another user owns, or that group or others may read, is refused: its
 * token may be known. Rotation writes a new file beside it and renames it over the old one, so a reader sees the old
 * token or the new one, never half a file; a running gateway reads the file again when it changed.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { McpboxError } from "../errors.ts";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export const newToken = (): string => randomBytes(32).toString("base64url");

/** The token in `file`, made when there is none. Throws a clear McpboxError for a file it must not trust. */
export function ensureToken(file: string): string {
  try {
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      fs.writeSync(fd, `${newToken()}\n`);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw unusable(file, (e as Error).message);
  }
  return readToken(file);
}

/** Replaces the token (the old one stops working for new requests); returns the new one. */
export function rotateToken(file: string): string {
  if (fs.existsSync(file)) readToken(file); // a file someone else planted is not silently replaced either
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    fs.writeSync(fd, `${newToken()}\n`);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  return readToken(file);
}

/** The token in an existing file, after checking the file is this user's own and private. */
export function readToken(file: string, uid: number | undefined = process.getuid?.(), platform: NodeJS.Platform = process.platform): string {
  const fd = openChecked(file);
  try {
    const st = fs.fstatSync(fd);
    const problem = fileProblem(st, uid, platform);
    if (problem) throw untrusted(file, problem);
    const text = fs.readFileSync(fd, "utf8").trim();
    if (!TOKEN.test(text)) throw unusable(file, "does not hold a token made by mcpbox", `run \`mcpbox token --rotate\` to make a new one`);
    return text;
  } finally {
    fs.closeSync(fd);
  }
}

function openChecked(file: string): number {
  try {
    return fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw untrusted(file, "is a symbolic link");
    throw unusable(file, (e as Error).message);
  }
}

/**
 * Why a token file must not be trusted, or undefined. Windows has no POSIX owner or mode bits (every file reads
 * 0666 and there is no uid): there only the kind of file is checked, and its privacy is the user profile's ACL.
 */
export function fileProblem(st: fs.Stats, uid: number | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!st.isFile()) return "is not a regular file";
  if (platform === "win32") return undefined;
  if (uid !== undefined && st.uid !== uid) return `is owned by uid ${st.uid}, not by you (uid ${uid})`;
  if ((st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, "0");
    const who = (st.mode & 0o070) !== 0 && (st.mode & 0o007) !== 0 ? "group and others" : (st.mode & 0o070) !== 0 ? "its group" : "others";
    return `may be read or written by ${who} (mode ${mode})`;
  }
  return undefined;
}

function untrusted(file: string, why: string): McpboxError {
  return new McpboxError("environment", `the token file ${file} ${why}: its token may be known to someone else`, {
    hint: `remove it (rm ${file}) and run \`mcpbox token\` to make a new private one`,
  });
}

function unusable(file: string, why: string, hint = "check the file, or set MCPBOX_HOME to a folder of your own"): McpboxError {
  return new McpboxError("environment", `the token file ${file} ${why}`, { hint });
}

/**
 * The token a running gateway checks against: the file is looked at again on each request (one stat) and read
 * again when it changed, so `mcpbox token --rotate` takes effect at once. A file that went bad refuses everything.
 */
export class TokenSource {
  readonly file: string;
  #stamp = "";
  #token: string | McpboxError;

  constructor(file: string, token: string) {
    this.file = file;
    this.#token = token;
    this.#stamp = stampOf(file);
  }

  /** The current token, or the error that makes every request refused (told once per change). */
  current(onProblem: (e: McpboxError) => void): string | undefined {
    const stamp = stampOf(this.file);
    if (stamp !== this.#stamp) {
      this.#stamp = stamp;
      try {
        this.#token = readToken(this.file);
      } catch (e) {
        this.#token = e instanceof McpboxError ? e : unusable(this.file, (e as Error).message);
        onProblem(this.#token);
      }
    }
    return typeof this.#token === "string" ? this.#token : undefined;
  }
}

function stampOf(file: string): string {
  try {
    const st = fs.lstatSync(file);
    return `${st.ino}:${st.mtimeMs}:${st.size}:${st.mode}:${st.uid}`;
  } catch {
    return "missing";
  }
}
