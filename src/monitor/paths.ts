/**
 * Where gateways publish themselves: `$MCPBOX_HOME/run/<session>.sock` and `<session>.json` (SPEC 6). The folder is
 * 0700 so only its user can reach the sockets. Entries of gateways whose process is gone are stale and removed.
 * Windows has no Unix sockets in folders: there the socket is the per-user named pipe
 * `\\.\pipe\mcpbox-<user>-<session>` and the json in run/ is still the record that `ps` and `monitor` list.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { GatewayInfo } from "./events.ts";
import { homeFolder, mcpboxHome } from "../home.ts";

export const runDir = (home = mcpboxHome()) => path.join(home, "run");
export function socketPath(session: string, home = mcpboxHome(), platform: NodeJS.Platform = process.platform, user = userName()): string {
  if (platform === "win32") return pipeName(session, user);
  return path.join(runDir(home), `${session}.sock`);
}

/** `\\.\pipe\mcpbox-<user>-<session>`: the user name kept to letters, digits, `.`, `_` and `-`. */
export function pipeName(session: string, user: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, "_");
  return `\\\\.\\pipe\\mcpbox-${safe(user)}-${safe(session)}`;
}

/** The login name; on Windows USERNAME when the account has no profile entry. */
export function userName(env: NodeJS.ProcessEnv = process.env): string {
  try {
    return os.userInfo().username;
  } catch {
    return env.USERNAME || env.USER || "user";
  }
}

/** A named pipe is no file: nothing to stat, chmod or remove. */
export const isPipe = (socket: string) => socket.startsWith("\\\\.\\pipe\\");
export const infoPath = (session: string, home = mcpboxHome()) => path.join(runDir(home), `${session}.json`);

/**
 * The run folder, made 0700 and refused when it (or the home) is not the user's own: a socket planted there would
 * be trusted by monitors, and a link there could make a gateway bind or remove somewhere else.
 */
export function ensureRunDir(home = mcpboxHome()): string {
  return homeFolder("run", { MCPBOX_HOME: home });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // alive, but another user's
  }
}

export interface PublishedGateway {
  info: GatewayInfo;
  socket: string;
}

/** The gateways published in the run folder whose process is alive; removes the entries of dead ones. */
export function listGateways(home = mcpboxHome(), platform: NodeJS.Platform = process.platform): PublishedGateway[] {
  const dir = ensureRunDir(home);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const found: PublishedGateway[] = [];
  for (const name of names.filter((n) => n.endsWith(".json"))) {
    const session = name.slice(0, -".json".length);
    const info = readInfo(path.join(dir, name));
    if (info && isAlive(info.pid)) found.push({ info, socket: socketPath(session, home, platform) });
    else if (info || isOld(path.join(dir, name))) removeEntry(session, home, platform);
  }
  removeOrphanSockets(dir, new Set(names.filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5))));
  return found.sort((a, b) => a.info.startedAt - b.info.startedAt);
}

export function removeEntry(session: string, home = mcpboxHome(), platform: NodeJS.Platform = process.platform): void {
  const socket = socketPath(session, home, platform);
  if (!isPipe(socket)) fs.rmSync(socket, { force: true });
  fs.rmSync(infoPath(session, home), { force: true });
}

function readInfo(file: string): GatewayInfo | undefined {
  try {
    const info = JSON.parse(fs.readFileSync(file, "utf8")) as GatewayInfo;
    return typeof info.pid === "number" && typeof info.session === "string" ? info : undefined;
  } catch {
    return undefined; // being written, or broken
  }
}

/** A socket without its json for more than a minute belongs to a gateway that died before describing itself. */
function removeOrphanSockets(dir: string, sessions: Set<string>): void {
  for (const name of safeReaddir(dir)) {
    if (name.endsWith(".sock") && !sessions.has(name.slice(0, -5)) && isOld(path.join(dir, name))) {
      fs.rmSync(path.join(dir, name), { force: true });
    }
  }
}

function isOld(file: string): boolean {
  try {
    return Date.now() - fs.statSync(file).mtimeMs > 60_000;
  } catch {
    return false;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
