/**
 * Where gateways publish themselves: `$MCPBOX_HOME/run/<session>.sock` and `<session>.json` (SPEC 6). The folder is
 * 0700 so only its user can reach the sockets. Entries of gateways whose process is gone are stale and removed.
 * Windows has no Unix sockets in folders: there the endpoint is a named pipe with a random name,
 * `\\.\pipe\mcpbox-<session>-<32 hex>`, written in the json, which stays the record that `ps` and `monitor` list.
 * The json also holds the key of the connection's handshake (./handshake.ts): the run file, not the endpoint, is what
 * says who may watch.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { GatewayInfo } from "./events.ts";
import { isKey } from "./handshake.ts";
import { homeFolder, mcpboxHome } from "../home.ts";

export const runDir = (home = mcpboxHome()) => path.join(home, "run");
/** The Unix socket of a session (POSIX; Windows uses a named pipe, newPipeName). */
export const socketPath = (session: string, home = mcpboxHome()): string => path.join(runDir(home), `${session}.sock`);

/**
 * A new pipe name, `\\.\pipe\mcpbox-<session>-<32 hex>`: 128 random bits, so nobody can create it before the
 * gateway does (Node's listen on a name that exists fails: libuv makes the first instance with
 * FILE_FLAG_FIRST_PIPE_INSTANCE). Not a secret: any Windows user can list the pipes; the handshake guards them.
 */
export function newPipeName(session: string, random = randomBytes(16).toString("hex")): string {
  return `\\\\.\\pipe\\mcpbox-${session.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)}-${random}`;
}

/**
 * A pipe name a monitor may connect to: this machine's (`\\.\`, never `\\host\pipe\`, whose SMB connection would
 * hand the user's credentials to that host) and of mcpbox's shape, whatever a run file says.
 */
export const isLocalPipe = (name: unknown): name is string => typeof name === "string" && /^\\\\\.\\pipe\\mcpbox-[A-Za-z0-9_-]{1,64}-[0-9a-f]{32}$/.test(name);

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
  /** the Unix socket, or the named pipe on Windows */
  socket: string;
  /** the handshake key from the run file (absent from gateways older than the handshake: they cannot be watched) */
  key?: string;
}

/** What a gateway writes in its run file: its info, its handshake key, and on Windows its pipe. */
export interface RunEntry {
  info: GatewayInfo;
  key: string;
  pipe?: string;
}

export const entryJson = (e: RunEntry): string => JSON.stringify({ ...e.info, monitor: { key: e.key, ...(e.pipe ? { pipe: e.pipe } : {}) } }, null, 2) + "\n";

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
    const entry = readEntry(path.join(dir, name));
    if (entry && isAlive(entry.info.pid)) {
      const socket = platform === "win32" ? entry.pipe : socketPath(session, home);
      if (socket) found.push({ info: entry.info, socket, ...(entry.key ? { key: entry.key } : {}) });
    } else if (entry || isOld(path.join(dir, name))) removeEntry(session, home, platform);
  }
  removeOrphanSockets(dir, new Set(names.filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5))));
  return found.sort((a, b) => a.info.startedAt - b.info.startedAt);
}

export function removeEntry(session: string, home = mcpboxHome(), platform: NodeJS.Platform = process.platform): void {
  if (platform !== "win32") fs.rmSync(socketPath(session, home), { force: true });
  fs.rmSync(infoPath(session, home), { force: true });
}

/** A run file's entry; its key and pipe only when well-formed (a pipe elsewhere than this machine's is dropped). */
function readEntry(file: string): { info: GatewayInfo; key?: string; pipe?: string } | undefined {
  let value: GatewayInfo & { monitor?: { key?: unknown; pipe?: unknown } };
  try {
    value = JSON.parse(fs.readFileSync(file, "utf8")) as typeof value;
  } catch {
    return undefined; // being written, or broken
  }
  if (typeof value?.pid !== "number" || typeof value.session !== "string") return undefined;
  const { monitor, ...info } = value;
  return { info, ...(isKey(monitor?.key) ? { key: monitor.key } : {}), ...(isLocalPipe(monitor?.pipe) ? { pipe: monitor.pipe } : {}) };
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
