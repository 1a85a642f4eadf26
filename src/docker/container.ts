/**
 * One MCP server in one container, reached over the container's stdio. The order of the engine calls is the measured
 * one: create (OpenStdin, StdinOnce, no TTY) → attach with hijack → register wait → start. A container that stops for
 * any reason is inspected (exit code, OOM flag) and removed: no AutoRemove, which loses the OOM flag.
 */
import type Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";
import type { Transport } from "@modelcontextprotocol/client";
import { McpboxError, messageOf } from "../errors.ts";
import { attachStdio, registerWait, type AttachedStdio, type WaitResult } from "./_attach.ts";
import { createContainerRaw } from "./create.ts";
import { createOptionsForEngine } from "./engine-kind.ts";
import { boundImageVolumes, imageVolumes } from "./image-volumes.ts";
import { mountsDeniedError } from "./file-sharing.ts";
import { ignoreStatus, removeContainer, statusOf } from "./_http.ts";
import { LABEL } from "../policy/labels.ts";
import { LineSplitter } from "./line-splitter.ts";
import type { ContainerStdioTransport } from "./stdio-transport.ts";

export interface ExitStatus {
  exitCode: number;
  oomKilled: boolean;
}

export interface ServerContainer {
  /** the full container id */
  readonly id: string;
  readonly name: string | undefined;
  /** MCP over the container's stdio */
  readonly transport: Transport;
  onStderr(listener: (line: string) => void): () => void;
  /** the last stderr lines (at most 50), for error messages about a server that failed */
  recentStderr(): string[];
  /** resolves when the container stops for any reason (it is removed by then) */
  readonly exited: Promise<ExitStatus>;
  /** stop (SIGTERM, then kill after the timeout) and remove; idempotent */
  stop(timeoutMs?: number): Promise<void>;
}

export interface StartOptions {
  /** default 16 MiB */
  maxMessageBytes?: number;
  onNonJsonLine?: (line: string) => void;
}

const MAX_STDERR_LINE = 8 * 1024;
const RECENT_STDERR = 50;
const DEFAULT_STOP_MS = 3000;

/** `onCreated`: told the container's id as soon as the engine made it (before its attach and start). */
export async function startServerContainer(
  docker: Docker,
  options: ContainerCreateOptions,
  start: StartOptions = {},
  onCreated?: (id: string) => void,
): Promise<ServerContainer> {
  const id = await createContainer(docker, options);
  onCreated?.(id);
  let stdio: AttachedStdio | undefined;
  let wait: { result: Promise<WaitResult> } | undefined;
  let Transport!: typeof ContainerStdioTransport;
  try {
    // both before the start (no first byte or an early exit is missed), at once: one round trip instead of two
    const [attached, waiting] = await Promise.allSettled([attachStdio(docker, id), registerWait(docker, id)]);
    if (attached.status === "fulfilled") stdio = attached.value;
    if (waiting.status === "fulfilled") wait = waiting.value;
    if (attached.status === "rejected") throw attached.reason;
    if (waiting.status === "rejected") throw waiting.reason;
    stdio = attached.value;
    wait = waiting.value;
    await docker.getContainer(id).start();
    // the transport's code (the SDK's JSON-RPC parsing, which builds the protocol's schemas and zod as it loads: tens
    // of ms of one thread) loads once the engine has started the container, while the server boots: loaded at the
    // create, it held back the attach and start requests of every container behind it (issue 15: cold start).
    // The server's stdout waits, unread, until then
    Transport = (await import("./stdio-transport.ts")).ContainerStdioTransport;
  } catch (e) {
    wait?.result.catch(() => {});
    stdio?.stdin.destroy();
    await removeContainer(docker, id).catch(() => {});
    throw mountsDeniedError(e, serverName(options)) ?? new McpboxError("failed", `could not start the container for ${serverOf(options)}: ${messageOf(e)}`, { cause: e });
  }
  const exited = wait.result
    .then((r) => r.StatusCode, () => pollExit(docker, id))
    .then((code) => finish(docker, id, code));
  const transport = new Transport(stdio.stdin, stdio.stdout, start);
  const stderr = stderrFeed(stdio.stderr);
  let stopping: Promise<void> | undefined;
  return {
    id,
    name: options.name,
    transport,
    onStderr: stderr.subscribe,
    recentStderr: stderr.recent,
    exited,
    stop: (timeoutMs = DEFAULT_STOP_MS) => (stopping ??= stopContainer(docker, id, exited, timeoutMs)),
  };
}

/**
 * Creates the container; a leftover of the same name from this session (a restart racing a removal) is replaced. The
 * image's VOLUMEs become tmpfs mounts first (image-volumes.ts): never an unbounded volume on the host's disk.
 */
async function createContainer(docker: Docker, given: ContainerCreateOptions): Promise<string> {
  const bounded = boundImageVolumes(given, await imageVolumes(docker, String(given.Image)));
  const options = await createOptionsForEngine(docker, bounded);
  try {
    return (await createContainerRaw(docker, options)).Id;
  } catch (e) {
    const denied = mountsDeniedError(e, serverName(options)); // Docker Desktop does not share a mount's folder
    if (denied) throw denied;
    if (statusOf(e) === 404) {
      throw new McpboxError("failed", `image ${options.Image} not found for ${serverOf(options)}`, {
        hint: "build it with `mcpbox build`, or pull it with `docker pull`",
        cause: e,
      });
    }
    if (statusOf(e) !== 409 || !options.name || !(await removeSameSession(docker, options))) {
      throw new McpboxError("failed", `could not create the container for ${serverOf(options)}: ${messageOf(e)}`, { cause: e });
    }
    return (await createContainerRaw(docker, options)).Id;
  }
}

async function removeSameSession(docker: Docker, options: ContainerCreateOptions): Promise<boolean> {
  const old = await docker.getContainer(options.name!).inspect().catch(() => undefined);
  const session = options.Labels?.[LABEL.session];
  if (!old || session === undefined || old.Config.Labels?.[LABEL.session] !== session) return false;
  await removeContainer(docker, old.Id);
  return true;
}

/** When the wait connection broke (the container may still run): ask the engine every second. */
async function pollExit(docker: Docker, id: string): Promise<number> {
  for (;;) {
    const state = await docker.getContainer(id).inspect().then((i) => i.State, () => undefined);
    if (!state?.Running) return state?.ExitCode ?? -1;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** After an exit: read the OOM flag (gone once removed), then remove the container. */
async function finish(docker: Docker, id: string, statusCode: number): Promise<ExitStatus> {
  const c = docker.getContainer(id);
  const state = await c.inspect().then((i) => i.State, () => undefined);
  await removeContainer(docker, id).catch(() => {});
  return { exitCode: statusCode >= 0 ? statusCode : (state?.ExitCode ?? -1), oomKilled: state?.OOMKilled ?? false };
}

/** SIGTERM (the init process forwards it), SIGKILL after the timeout, then make sure it is removed. */
async function stopContainer(docker: Docker, id: string, exited: Promise<ExitStatus>, timeoutMs: number): Promise<void> {
  const c = docker.getContainer(id);
  const t = Math.max(0, Math.ceil(timeoutMs / 1000));
  await ignoreStatus(c.stop({ t }), 304, 404, 409).catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((r) => (timer = setTimeout(r, 5000).unref()));
  await Promise.race([exited, grace]);
  clearTimeout(timer);
  await removeContainer(docker, id).catch(() => {});
}

function stderrFeed(stream: NodeJS.ReadableStream) {
  const listeners = new Set<(line: string) => void>();
  const recent: string[] = [];
  // what the server printed before anyone listened (a container started before its gateway was ready): the first
  // listener gets it, up to RECENT_STDERR lines
  let unheard: string[] | undefined = [];
  const emit = (line: string) => {
    recent.push(line);
    if (recent.length > RECENT_STDERR) recent.shift();
    if (unheard) {
      unheard.push(line);
      if (unheard.length > RECENT_STDERR) unheard.shift();
    }
    for (const l of listeners) l(line);
  };
  const splitter = new LineSplitter(MAX_STDERR_LINE, {
    line: (b) => emit(b.toString("utf8")),
    oversize: (o) => emit(`${o.head.toString("utf8")}… [line of ${o.bytes} bytes cut]`),
  }, 1024);
  stream.on("data", (chunk: Buffer) => splitter.push(chunk));
  stream.on("end", () => splitter.end());
  return {
    subscribe(listener: (line: string) => void): () => void {
      listeners.add(listener);
      const before = unheard;
      unheard = undefined;
      for (const line of before ?? []) listener(line);
      return () => listeners.delete(listener);
    },
    recent: () => [...recent],
  };
}

/** The server's name for mountsDeniedError ("server <name>: ..."). */
export function serverName(options: ContainerCreateOptions): string {
  return options.Labels?.[LABEL.server] ?? options.name ?? String(options.Image);
}

function serverOf(options: ContainerCreateOptions): string {
  const server = options.Labels?.[LABEL.server];
  return server ? `server ${server}` : `image ${options.Image}`;
}
