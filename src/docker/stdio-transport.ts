/**
 * MCP over a container's stdio: newline-delimited JSON-RPC, like the SDK's stdio transport, but with a bounded line
 * length (SPEC 4.3). Lines that are not JSON-RPC are handed to onNonJsonLine and dropped; an oversized message is
 * dropped with an error, and when it is a response its request fails at once with a clear JSON-RPC error.
 */
import { once } from "node:events";
import type { Writable } from "node:stream";
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../jsonrpc/depth.ts";
import { turnGatherer } from "../jsonrpc/turn-writes.ts";
import { LineSplitter, type OversizeLine } from "./line-splitter.ts";

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** What a server's stdout is read from: a Readable (a host process), or the attach demux's feed (_attach.ts). */
export interface ByteSource {
  on(event: "data", listener: (chunk: Buffer) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  once(event: "end" | "close", listener: () => void): unknown;
}

export interface StdioTransportOptions {
  maxMessageBytes?: number;
  onNonJsonLine?: (line: string) => void;
}

/** Thrown through onerror when a server prints a message over the limit. */
export class MessageTooLargeError extends Error {
  readonly bytes: number;
  readonly limit: number;
  constructor(bytes: number, limit: number) {
    super(`a message from the server is larger than the ${formatBytes(limit)} limit (at least ${bytes} bytes); it was dropped`);
    this.name = "MessageTooLargeError";
    this.bytes = bytes;
    this.limit = limit;
  }
}

export class ContainerStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** sees each parsed JSON object before it is validated; true takes it (the gateway's fast lane, raw-channel.ts) */
  intercept: ((message: unknown) => boolean) | undefined = undefined;
  /**
   * A local pipe to one process, as the SDK v2 Client recognises a stdio transport (`pid` and `stderr` present): its
   * era probe then takes a silent server for a 2025-11-25 one instead of an outage. The container's stderr is read
   * by the launcher, not here.
   */
  readonly pid: number | undefined = undefined;
  readonly stderr: null = null;

  private readonly stdin: Writable;
  private readonly limit: number;
  private readonly onNonJsonLine: (line: string) => void;
  private readonly splitter: LineSplitter;
  private started = false;
  private closed = false;
  /** what happened before start(): delivered by start(), bounded so a flood before it cannot grow memory */
  private early: Array<() => void> | undefined = [];
  /** the bytes of the messages held in `early` (a count alone would let 1000 messages of 16 MiB each be held) */
  private earlyBytes = 0;

  constructor(stdin: Writable, stdout: ByteSource, options: StdioTransportOptions = {}) {
    this.stdin = stdin;
    this.limit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.onNonJsonLine = options.onNonJsonLine ?? (() => {});
    this.splitter = new LineSplitter(this.limit, {
      line: (bytes) => this.handleLine(bytes),
      oversize: (info) => this.handleOversize(info),
    });
    // read from the first byte: a paused stream would buffer whatever the server prints
    stdout.on("data", (chunk: Buffer) => {
      if (!this.closed) this.splitter.push(chunk);
    });
    stdout.once("end", () => {
      this.splitter.end();
      this.markClosed();
    });
    stdout.once("close", () => this.markClosed());
    stdout.on("error", (e) => this.dispatch(() => this.onerror?.(e)));
    stdin.on("error", (e) => this.dispatch(() => this.onerror?.(e)));
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("ContainerStdioTransport already started");
    this.started = true;
    const early = this.early ?? [];
    this.early = undefined;
    for (const deliver of early) deliver();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.stdin.writableEnded || this.stdin.destroyed) throw new Error("the server's stdin is closed");
    if (this.stdin.write(JSON.stringify(message) + "\n")) return;
    await waitForDrain(this.stdin);
  }

  /** Writes one already serialised message; false when the server's stdin is closed. */
  sendLine(json: string): boolean {
    if (this.closed || this.stdin.writableEnded || this.stdin.destroyed) return false;
    this.write(json + "\n");
    return true;
  }

  /** gathers the lines of one turn of the event loop after its first into one write (jsonrpc/turn-writes.ts) */
  private gather: (() => void) | undefined;

  private write(text: string): boolean {
    (this.gather ??= turnGatherer(this.stdin))();
    return this.stdin.write(text);
  }

  async close(): Promise<void> {
    if (!this.stdin.writableEnded && !this.stdin.destroyed) this.stdin.end();
    this.markClosed();
  }

  /** One line of the server's stdout. Nothing in it may stop the gateway: whatever handling it throws stays its failure. */
  private handleLine(bytes: Buffer): void {
    if (this.closed || bytes.length === 0) return;
    const text = bytes.toString("utf8");
    try {
      if (nestedDeeperThan(text)) {
        const why = `nested deeper than ${MAX_JSON_DEPTH} levels`;
        return this.refuse({ head: bytes.subarray(0, 256), tail: bytes.subarray(-256), bytes: bytes.length }, new Error(`a message from the server is ${why}; it was dropped`), why);
      }
      const json = this.intercept && !this.early ? parseJsonObject(text) : undefined;
      if (json !== undefined && this.intercept?.(json)) return;
      const message = json === undefined ? parseMessage(text) : validMessage(json);
      if (!message) {
        if (text.trim() !== "") this.onNonJsonLine(text);
      } else if (!this.early) this.onmessage?.(message);
      else {
        // held as its text, parsed again when delivered: parsed, small objects take ~20 times the bytes of their JSON
        // (`[{},{},...]`), and the hold is bounded by bytes (boundary 5, test/security/early-objects.test.ts)
        this.dispatch(() => {
          const again = parseMessage(text);
          if (again) this.onmessage?.(again);
        }, bytes.length);
      }
    } catch (e) {
      this.onNonJsonLine(`(a message mcpbox could not handle: ${e instanceof Error ? e.message : String(e)}) ${text.slice(0, 200)}`);
    }
  }

  private handleOversize(info: OversizeLine): void {
    if (this.closed) return;
    try {
      this.refuse(info, new MessageTooLargeError(info.bytes, this.limit), `larger than the ${formatBytes(this.limit)} message limit`);
    } catch (e) {
      this.onNonJsonLine(`(an oversized message mcpbox could not handle: ${e instanceof Error ? e.message : String(e)})`);
    }
  }

  /** A message that is dropped: reported, and when it answers a request, that request fails at once. */
  private refuse(info: OversizeLine, error: Error, why: string): void {
    this.dispatch(() => this.onerror?.(error));
    const id = responseIdOf(info);
    if (id === undefined) return;
    const message = `the server's response is ${why}; mcpbox dropped it`;
    const response = { jsonrpc: "2.0" as const, id, error: { code: -32603, message } };
    if (!this.early && this.intercept?.(response)) return;
    this.dispatch(() => this.onmessage?.(response));
  }

  /** Delivers now, or holds for start(): at most MAX_EARLY_EVENTS events and MAX_EARLY_BYTES of messages (more is dropped). */
  private dispatch(deliver: () => void, bytes = 0): void {
    if (!this.early) return deliver();
    if (this.early.length >= MAX_EARLY_EVENTS || this.earlyBytes + bytes > MAX_EARLY_BYTES) return;
    this.earlyBytes += bytes;
    this.early.push(deliver);
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.early && this.early.length >= MAX_EARLY_EVENTS) this.early.pop(); // the close itself is never lost
    this.dispatch(() => this.onclose?.());
  }
}

const MAX_EARLY_EVENTS = 1000;
/** what a server may print before its transport starts and still have it delivered: the client queue's figure */
const MAX_EARLY_BYTES = 8 * 1024 * 1024;

/** A JSON-RPC message, or undefined for anything else (logs, banners, half lines). */
export function parseMessage(text: string): JSONRPCMessage | undefined {
  const value = parseJsonObject(text);
  return value === undefined ? undefined : validMessage(value);
}

/** The JSON object a line holds, or undefined when it is not one. */
function parseJsonObject(text: string): object | undefined {
  if (firstNonBlank(text) !== "{") return undefined;
  try {
    return JSON.parse(text) as object;
  } catch {
    return undefined;
  }
}

/** The first character that is not JSON whitespace (without copying the line, which may be megabytes). */
function firstNonBlank(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return text[i];
  }
  return undefined;
}

/** The message as the SDK v2 Client reads it (its own stdio transport parses each line the same way). */
function validMessage(value: unknown): JSONRPCMessage | undefined {
  try {
    return parseJSONRPCMessage(value);
  } catch {
    return undefined;
  }
}

const HEAD_ID = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,\s*"(?:result|error)"/;
const TAIL_ID = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;
const HEAD_REQUEST = /^\s*\{[^{[]*"method"\s*:/;

/** The id of an oversized line when it is clearly a response (its id first or last, no top-level method). */
export function responseIdOf(info: OversizeLine): string | number | undefined {
  const head = info.head.toString("utf8");
  const raw = HEAD_ID.exec(head)?.[1] ?? (HEAD_REQUEST.test(head) ? undefined : TAIL_ID.exec(info.tail.toString("utf8"))?.[1]);
  if (raw === undefined) return undefined;
  return JSON.parse(raw) as string | number;
}

function waitForDrain(stream: Writable): Promise<void> {
  const ac = new AbortController();
  return Promise.race([
    once(stream, "drain", { signal: ac.signal }).then(() => undefined),
    once(stream, "close", { signal: ac.signal }).then(() => {
      throw new Error("the server's stdin closed while sending");
    }),
  ]).finally(() => ac.abort());
}

function formatBytes(n: number): string {
  const mib = n / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${n} bytes`;
}
