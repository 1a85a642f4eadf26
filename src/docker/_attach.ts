/**
 * The two engine calls that must be in place before a container starts (ENVIRONMENT, measured): a hijacked attach of
 * stdin, stdout and stderr, and a wait on the next exit whose response headers prove the engine registered it.
 */
import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import { hijackAttach } from "./_hijack.ts";
import { chunkOfLines, severalLines } from "../jsonrpc/turn-writes.ts";
import { FrameSplitter } from "./stream-frames.ts";

export interface AttachedStdio {
  /** the hijacked connection: writes go to the container's stdin */
  stdin: Duplex;
  stdout: StdoutFeed;
  stderr: PassThrough;
}

export interface DemuxOptions {
  /**
   * A chunk read that holds several lines is handled as one (jsonrpc/turn-writes.ts chunkOfLines): what its messages
   * make the gateway write leaves in one write per stream when the chunk is done. Default true; a byte copier has no
   * use for it.
   */
  chunkOfLines?: boolean;
}

/** Attach with hijack, before start: stdin, stdout and stderr over one upgraded connection. */
export async function attachStdio(docker: Docker, id: string, options: DemuxOptions = {}): Promise<AttachedStdio> {
  return demuxAttached(await hijackAttach(docker, id), options);
}

/**
 * The container's stdout and stderr out of the multiplexed stream of a hijacked attach (no TTY, stream-frames.ts). The
 * stdout is the gateway's hot path: its bytes go on as views of the chunks read, with no stream in between.
 */
export function demuxAttached(stream: Duplex, options: DemuxOptions = {}): AttachedStdio {
  // past the hold's cap the connection is no longer read (the engine, then the container, wait) until it is listened to
  const stdout = new StdoutFeed({ pause: () => stream.pause(), resume: () => stream.resume() });
  const stderr = new PassThrough();
  const frames = new FrameSplitter((which, bytes) => (which === "stdout" ? stdout.write(bytes) : stderr.write(bytes)));
  // a frame header may hold a newline byte in its length: such a chunk is taken for several lines, which costs nothing
  if (options.chunkOfLines === false) stream.on("data", (chunk: Buffer) => frames.push(chunk));
  else stream.on("data", (chunk: Buffer) => (severalLines(chunk) ? chunkOfLines(() => frames.push(chunk)) : frames.push(chunk)));
  const endBoth = () => {
    stdout.end();
    stderr.end();
  };
  stream.once("end", endBoth);
  stream.once("close", endBoth);
  stream.on("error", endBoth);
  return { stdin: stream, stdout, stderr };
}

/**
 * A container's stdout as the demux hands it on: `data` events, then `end` and `close` once. What comes before the
 * first `data` listener is held for it and delivered a tick after it is added, as a paused stream would (the
 * transport is made once the container has started, and the server may have spoken by then). The hold is bounded
 * (boundary 5): past HOLD_CAP_BYTES the source is paused, and resumed once the held bytes are delivered.
 */
export class StdoutFeed extends EventEmitter {
  #held: Buffer[] | undefined = [];
  #heldBytes = 0;
  #paused = false;
  #ended = false;
  readonly #source: FeedSource | undefined;

  constructor(source?: FeedSource) {
    super();
    this.#source = source;
    const onListener = (event: string | symbol) => {
      if (event !== "data") return;
      this.off("newListener", onListener);
      process.nextTick(() => this.#release());
    };
    this.on("newListener", onListener);
  }

  write(bytes: Buffer): void {
    if (this.#ended) return;
    if (!this.#held) {
      this.emit("data", bytes);
      return;
    }
    this.#held.push(bytes);
    this.#heldBytes += bytes.length;
    if (this.#heldBytes > HOLD_CAP_BYTES && !this.#paused && this.#source) {
      this.#paused = true;
      this.#source.pause();
    }
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#held) this.#finish();
  }

  #release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    this.#heldBytes = 0;
    for (const bytes of held) this.emit("data", bytes);
    if (this.#paused) {
      this.#paused = false;
      this.#source?.resume();
    }
    if (this.#ended) this.#finish();
  }

  #finish(): void {
    this.emit("end");
    this.emit("close");
  }
}

/** What a StdoutFeed reads from: paused while its hold is full. */
export interface FeedSource {
  pause(): void;
  resume(): void;
}

/** The most a container's stdout is held before anyone listens (as stdio-transport.ts's MAX_EARLY_BYTES). */
export const HOLD_CAP_BYTES = 8 * 1024 * 1024;

export interface WaitResult {
  StatusCode: number;
  Error?: { Message?: string } | null;
}

/**
 * Registers a wait for the container's next exit. Resolves once the engine answered with headers (so the wait is in
 * place before start); the inner promise resolves with the exit status.
 */
export function registerWait(docker: Docker, id: string): Promise<{ result: Promise<WaitResult> }> {
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      {
        path: `/containers/${id}/wait?`,
        method: "POST",
        isStream: true,
        options: { _query: { condition: "next-exit" }, _body: {} },
        statusCodes: { 200: true, 404: "no such container", 500: "server error" },
      },
      (err: unknown, res: unknown) => (err ? reject(err) : resolve({ result: readJson(res as IncomingMessage) })),
    );
  });
}

function readJson(res: IncomingMessage): Promise<WaitResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("error", reject);
    res.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as WaitResult);
      } catch (e) {
        reject(e);
      }
    });
  });
}
