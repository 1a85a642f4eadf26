/**
 * `$MCPBOX_HOME` (default `~/.mcpbox`): audit logs, control sockets and caches. mcpbox trusts what it finds there
 * (sockets it talks to, caches it loads), so the home and every folder made in it are the user's own and private:
 * created 0700 and refused when another user owns them or group/others may write them. Every user of the home goes
 * through homeFolder(); a folder outside it that mcpbox writes its own files into (audit.path) through privateFolder().
 * scripts/sea/launcher.cjs repeats the check for its chunk cache (it runs before any of this code is loaded).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { McpboxError } from "./errors.ts";

export function mcpboxHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.MCPBOX_HOME || path.join(os.homedir(), ".mcpbox");
  // relative: inside whatever folder mcpbox runs in, which an MCP client makes the workspace (a cloned repository,
  // whose committed files mcpbox would then trust: compile cache, run files, lists). "~/..." from a JSON env block,
  // which no shell expanded, is the likely way in (hrev)
  if (!path.isAbsolute(home)) {
    throw new UntrustedFolder(
      `$MCPBOX_HOME ${home} is not an absolute path: it would lie in the working folder (${process.cwd()}), which may be a repository`,
      home.startsWith("~") ? `write the home folder out: ${path.join(os.homedir(), home.replace(/^~[\\/]?/, ""))} (no shell expanded the ~)` : "set MCPBOX_HOME to an absolute path",
    );
  }
  return home;
}

/** A folder that someone else could have planted things in: the message names it, its owner or mode, and the fix. */
export class UntrustedFolder extends McpboxError {
  constructor(message: string, hint: string) {
    super("environment", message, { hint });
    this.name = "UntrustedFolder";
  }
}

/** `$MCPBOX_HOME/<sub>` (e.g. "audit", "cache/lists"), each folder on the way made 0700 and checked. */
export function homeFolder(sub: string, env: NodeJS.ProcessEnv = process.env): string {
  const home = mcpboxHome(env);
  let dir = privateFolder(home, "$MCPBOX_HOME");
  for (const part of sub.split("/").filter(Boolean)) dir = privateFolder(path.join(dir, part), "mcpbox's folder", false);
  return dir;
}

/**
 * Makes `dir` (0700, parents too) unless it exists, then checks it is a real folder of this user that group and
 * others cannot write (a readable one is tightened to 0700). Throws UntrustedFolder for what someone else could have
 * done, and an McpboxError naming the folder when it cannot be made.
 */
export function privateFolder(dir: string, what: string, ancestorsToo = true, platform: NodeJS.Platform = process.platform): string {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw cannotMake(dir, what, e);
  }
  const uid = process.getuid?.();
  const problem = folderProblem(dir, uid, platform) ?? (ancestorsToo ? ancestorProblem(dir, uid, platform) : undefined);
  if (problem) throw problem.untrusted ? new UntrustedFolder(`${what} ${dir} ${problem.why}`, problem.fix) : cannotMake(dir, what, problem.why);
  return dir;
}

/**
 * Windows has no POSIX owner or mode bits (Node reports 0666/0777 for every folder and no uid): there the checks of
 * owner and mode are skipped, and the home's privacy is the user profile's ACL.
 */
const hasPosixModes = (platform: NodeJS.Platform) => platform !== "win32";

/**
 * A folder above `dir`, on its path as given (what every later open goes through) or as resolved, that another user
 * owns (a link on the way included: its owner can point it elsewhere), or that others may write without the sticky
 * bit: whoever can rename entries there can swap the whole folder for one of theirs after it was checked.
 */
export function ancestorProblem(dir: string, uid: number | undefined = process.getuid?.(), platform: NodeJS.Platform = process.platform): Problem | undefined {
  if (uid === undefined || !hasPosixModes(platform)) return undefined;
  const fix = "set MCPBOX_HOME (or audit.path) to a folder under folders of your own";
  const seen = new Set<string>();
  for (const start of [path.dirname(path.resolve(dir)), path.dirname(fs.realpathSync(dir))]) {
    // a walk reaching a folder seen already has seen everything above it
    for (let d = start; !seen.has(d); d = path.dirname(d)) {
      seen.add(d);
      const link = fs.lstatSync(d);
      const st: fs.Stats = link.isSymbolicLink() && link.uid !== uid && link.uid !== 0 ? link : fs.statSync(d);
      if (st.uid !== uid && st.uid !== 0) return { why: `lies in ${d}, which uid ${st.uid} owns: they could replace it`, fix, untrusted: true };
      if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) {
        return { why: `lies in ${d}, which others may write (mode ${(st.mode & 0o7777).toString(8).padStart(4, "0")}, no sticky bit): they could replace it`, fix, untrusted: true };
      }
      if (path.dirname(d) === d) break;
    }
  }
  return undefined;
}

interface Problem {
  why: string;
  fix: string;
  untrusted: boolean;
}

/** What is wrong with an existing folder, or undefined when it is a private folder of this user. */
export function folderProblem(dir: string, uid: number | undefined = process.getuid?.(), platform: NodeJS.Platform = process.platform): Problem | undefined {
  const link = fs.lstatSync(dir);
  const yours = "set MCPBOX_HOME (or audit.path) to a folder of your own";
  if (link.isSymbolicLink() && uid !== undefined && link.uid !== uid && link.uid !== 0) {
    return { why: `is a symbolic link owned by uid ${link.uid}, not by you (uid ${uid})`, fix: `remove the link, or ${yours}`, untrusted: true };
  }
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    return { why: "is a symbolic link to nothing", fix: `remove the link, or ${yours}`, untrusted: false };
  }
  if (!st.isDirectory()) return { why: "is not a folder", fix: yours, untrusted: false };
  if (!hasPosixModes(platform)) return undefined;
  if (uid !== undefined && st.uid !== uid) {
    return { why: `is owned by uid ${st.uid}, not by you (uid ${uid})`, fix: `${yours}; mcpbox makes it, private to you`, untrusted: true };
  }
  if ((st.mode & 0o022) !== 0) {
    const who = (st.mode & 0o020) !== 0 && (st.mode & 0o002) !== 0 ? "group and others" : (st.mode & 0o020) !== 0 ? "its group" : "others";
    const mode = (st.mode & 0o7777).toString(8).padStart(4, "0");
    return { why: `is writable by ${who} (mode ${mode}): they could plant files mcpbox trusts`, fix: `chmod 700 ${dir} (and check what is in it), or ${yours}`, untrusted: true };
  }
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700); // readable by others only: what it holds is the user's alone
  return undefined;
}

function cannotMake(dir: string, what: string, cause: unknown): McpboxError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new McpboxError("environment", `${what} ${dir} cannot be used: ${why}`, { hint: "set MCPBOX_HOME (or audit.path) to a writable folder of your own", cause });
}

/** Where `serve --http` keeps its bearer token (SPEC 4.9), in the checked home; src/http/token.ts checks the file. */
export const tokenFile = (env: NodeJS.ProcessEnv = process.env): string => path.join(homeFolder("", env), "http-token");
