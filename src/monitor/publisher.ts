/**
 * The gateway's event socket (SPEC 6): `$MCPBOX_HOME/run/<session>.sock` (folder 0700, socket 0600) plus
 * `<session>.json` (on Windows a named pipe of a random name instead of the socket, ./paths.ts). A monitor first proves
 * it knows the key in the json (./handshake.ts), then gets `hello`, the current snapshot, then live events; it may ask
 * for a restart.
 * Container stats are polled every second only while at least one monitor is connected. Nothing here keeps the
 * gateway's process alive (the server, sockets and timer are unref'ed).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import type { GatewayEvent, GatewayEvents, GatewayInfo } from "./events.ts";
import { McpboxError, messageOf } from "../errors.ts";
import { encode, lineSplitter, parseCommand, PROTOCOL_VERSION, type MonitorCommand } from "./protocol.ts";
import { Recorder } from "./recorder.ts";
import { mcpboxHome } from "../home.ts";
import { answerChallengeCheck, HANDSHAKE_MS, MAX_HANDSHAKE_BYTES, newKey, newNonce } from "./handshake.ts";
import { ensureRunDir, entryJson, infoPath, listGateways, newPipeName, socketPath, type RunEntry } from "./paths.ts";

export interface GatewayActions {
  restart(server: string): Promise<void>;
}

export type StatsReader = (containerId: string) => Promise<Omit<Extract<GatewayEvent, { type: "stats" }>, "type" | "at" | "server"> | undefined>;

export interface PublishOptions {
  /** default: $MCPBOX_HOME or ~/.mcpbox */
  home?: string;
  /** default: one-shot Docker stats (src/docker/stats.ts) */
  readStats?: StatsReader;
  statsIntervalMs?: number;
  /** default: process.platform (win32 publishes on a named pipe, src/monitor/paths.ts) */
  platform?: NodeJS.Platform;
  /** win32: where to listen, one fresh name per attempt (default: newPipeName; tests give names of their own) */
  pipeNames?: (session: string) => string;
}

export interface Publication {
  readonly socket: string;
  /** monitors connected now */
  readonly clients: number;
  close(): Promise<void>;
}

/** sun_path holds 108 bytes on Linux (104 on macOS), with its terminating zero. */
const MAX_SOCKET_PATH = process.platform === "linux" ? 107 : 103;
/** A monitor that stops reading is dropped once this much output waits for it. */
const MAX_PENDING_BYTES = 4 << 20;
/** Connections still in their handshake at once; more are closed at once (a local user could open pipes in a loop). */
const MAX_HANDSHAKES = 32;
/** Fresh random pipe names tried when one exists already (128 random bits: only if something is very wrong). */
const PIPE_ATTEMPTS = 3;

export async function publishGateway(events: GatewayEvents, info: GatewayInfo, actions: GatewayActions, options: PublishOptions = {}): Promise<Publication> {
  const home = options.home ?? mcpboxHome();
  const platform = options.platform ?? process.platform;
  ensureRunDir(home);
  listGateways(home, platform); // removes what dead gateways left
  const pipe = platform === "win32";
  const key = newKey();
  const nextPipe = options.pipeNames ?? newPipeName;
  let socket = pipe ? nextPipe(info.session) : socketPath(info.session, home);
  if (!pipe && Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    throw new McpboxError("environment", `the monitor socket path ${socket} is longer than Unix sockets allow (${MAX_SOCKET_PATH} bytes)`, {
      hint: "set MCPBOX_HOME to a shorter folder",
    });
  }
  if (!pipe) removeSocket(socket);

  const recorder = new Recorder();
  const clients = new Set<net.Socket>();
  let handshakes = 0;
  const write = (client: net.Socket, line: string) => {
    if (client.writableLength > MAX_PENDING_BYTES) return void client.destroy();
    client.write(line);
  };
  const send = (client: net.Socket, message: object) => write(client, encode(message));
  const publish = (event: GatewayEvent) => {
    const published = recorder.record(event);
    if (clients.size === 0) return;
    const line = encode({ v: PROTOCOL_VERSION, ...published }); // once, whatever the number of monitors
    for (const client of clients) write(client, line);
  };
  const unsubscribe = events.on(publish);
  const poller = statsPoller(recorder, publish, options);

  /** An authenticated monitor: the welcome, hello and snapshot, then live events and its commands. */
  const admit = (client: net.Socket, welcome: object) => {
    send(client, welcome);
    send(client, { v: PROTOCOL_VERSION, type: "hello", gateway: info });
    send(client, { v: PROTOCOL_VERSION, type: "snapshot", ...recorder.snapshot() });
    clients.add(client);
    poller.start();
    const commands = lineSplitter((line) => void answer(client, parseCommand(line)), () => client.destroy());
    client.on("data", commands);
    return commands;
  };

  const server = net.createServer((client) => {
    client.unref();
    client.on("error", () => client.destroy());
    if (handshakes >= MAX_HANDSHAKES) return void client.destroy();
    handshakes++;
    let pending = true;
    const settle = () => {
      if (pending) handshakes--;
      pending = false;
      clearTimeout(timer);
    };
    const timer = setTimeout(() => client.destroy(), HANDSHAKE_MS);
    timer.unref();
    client.on("close", () => {
      settle();
      clients.delete(client);
      if (clients.size === 0) poller.stop();
    });
    // nothing but a nonce goes out before the peer proves it knows the key: another Windows user may open the pipe
    const nonce = newNonce();
    send(client, { v: PROTOCOL_VERSION, type: "challenge", nonce });
    let buffered = Buffer.alloc(0);
    const onHandshake = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const nl = buffered.indexOf(0x0a);
      if (nl < 0 ? buffered.length > MAX_HANDSHAKE_BYTES : nl > MAX_HANDSHAKE_BYTES) return void client.destroy();
      if (nl < 0) return;
      client.off("data", onHandshake);
      const welcome = answerChallengeCheck(key, nonce, buffered.subarray(0, nl).toString("utf8"));
      if (!welcome || client.destroyed) return void client.destroy();
      settle();
      const commands = admit(client, welcome);
      if (nl + 1 < buffered.length) commands(buffered.subarray(nl + 1));
    };
    client.on("data", onHandshake);
  });

  const answer = async (client: net.Socket, command: MonitorCommand | undefined) => {
    if (!command) return send(client, { v: PROTOCOL_VERSION, type: "reply", ok: false, error: "unknown command" });
    if (command.type === "ping") return send(client, { v: PROTOCOL_VERSION, type: "reply", id: command.id, ok: true });
    try {
      await actions.restart(command.server);
      send(client, { v: PROTOCOL_VERSION, type: "reply", id: command.id, ok: true });
    } catch (e) {
      send(client, { v: PROTOCOL_VERSION, type: "reply", id: command.id, ok: false, error: messageOf(e) });
    }
  };

  try {
    socket = await listenFresh(server, socket, pipe ? () => nextPipe(info.session) : undefined);
  } catch (e) {
    unsubscribe();
    throw e;
  }
  server.unref();
  if (!pipe) fs.chmodSync(socket, 0o600);
  writeEntry(infoPath(info.session, home), { info, key, ...(pipe ? { pipe: socket } : {}) });

  let closed = false;
  return {
    socket,
    get clients() {
      return clients.size;
    },
    async close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      poller.stop();
      for (const client of clients) client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      try {
        if (!pipe) removeSocket(socket);
      } catch {
        // replaced by something else since: not ours to remove
      }
      fs.rmSync(infoPath(info.session, home), { force: true });
    },
  };
}

/** Removes a socket left at this path (looked at, not followed); anything else there is not ours to remove. */
function removeSocket(socket: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(socket);
  } catch {
    return;
  }
  if (!st.isSocket()) {
    throw new McpboxError("environment", `${socket} exists and is not a socket`, { hint: "remove it; mcpbox keeps only its own sockets in $MCPBOX_HOME/run" });
  }
  fs.unlinkSync(socket);
}

/**
 * Listens on `socket`; for a pipe (`fresh` given) a name that exists is never joined (a squatter's server would get
 * our monitors): a fresh one is tried, three in all.
 */
async function listenFresh(server: net.Server, socket: string, fresh: (() => string) | undefined): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      await listen(server, socket);
      return socket;
    } catch (e) {
      if (!fresh || (e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
      if (attempt === PIPE_ATTEMPTS) {
        throw new McpboxError("environment", `the monitor pipes ${socket} and ${PIPE_ATTEMPTS - 1} other fresh random names exist already: another program creates them`, {
          hint: "find the program holding \\\\.\\pipe\\mcpbox-* pipes (Sysinternals pipelist or handle) and stop it",
        });
      }
      socket = fresh();
    }
  }
}

function listen(server: net.Server, socket: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Atomic write, readable only by the user (it holds the handshake key); the temp file is new (never a link someone left). */
function writeEntry(file: string, entry: RunEntry): void {
  const tmp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(tmp, entryJson(entry), { mode: 0o600, flag: "wx" });
  fs.renameSync(tmp, file);
}

/** Polls stats of running containers once per interval; skips a tick while the previous poll is still running. */
function statsPoller(recorder: Recorder, publish: (e: GatewayEvent) => void, options: PublishOptions) {
  let timer: NodeJS.Timeout | undefined;
  let busy = false;
  let read = options.readStats;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      read ??= await dockerStatsReader();
      const running = recorder.runningContainers();
      await Promise.all(
        running.map(async ({ server, containerId }) => {
          const figures = await read!(containerId).catch(() => undefined);
          if (figures && timer) publish({ type: "stats", at: Date.now(), server, ...figures });
        }),
      );
    } finally {
      busy = false;
    }
  };
  return {
    start() {
      if (timer) return;
      timer = setInterval(() => void tick().catch(() => {}), options.statsIntervalMs ?? 1000);
      timer.unref();
      void tick().catch(() => {});
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}

/** Loaded on first use so a gateway that nobody monitors never loads the stats code. */
async function dockerStatsReader(): Promise<StatsReader> {
  const { StatsSampler } = await import("../docker/stats.ts");
  const sampler = new StatsSampler();
  return (id) => sampler.sample(id);
}
