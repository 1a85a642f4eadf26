/**
 * The gateway's own stdio transport. Unlike the SDK's StdioServerTransport it bounds each line (a huge line is
 * dropped and answered with an error, memory stays bounded), answers garbage with a JSON-RPC parse error instead
 * of closing, and reports the end of stdin as the end of the connection.
 */
import type { Readable, Writable } from "node:stream";
import { isSpecType, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/server";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../jsonrpc/depth.ts";
import { chunkOfLines, turnGatherer } from "../jsonrpc/turn-writes.ts";
import { CAPS } from "./limits.ts";
import { ErrorCode } from "./rpc-error.ts";
import type { RawChannel } from "./raw-channel.ts";
import { randomBytes } from "node:crypto";
import { idKey, type EarlyAnswered, type EarlyHandover } from "./early-stdio.ts";
import type { EarlyMethod } from "./answer-record.ts";

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export class BoundedStdioTransport implements Transport, RawChannel {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  intercept: ((message: unknown) => boolean) | undefined = undefined;

  readonly #in: Readable;
  readonly #out: Writable;
  readonly #max: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #skipping = false;
  #closed = false;
  /** what was read and answered before the gateway's code loaded (early-stdio.ts), and the record of its answers */
  readonly #early: EarlyHandover | undefined;
  /**
   * the client's initialize and first tools/list until answered, by the id they go to the gateway with: one of this
   * transport's own, never a client's, so the answer found is that request's even where the client uses its id again
   * (it may, once answered: those answered early were before the gateway read them). The gateway's answers are
   * recorded; to one answered early, dropped; to any other, sent with the client's id
   */
  readonly #asked = new Map<string, { clientId: string | number; method: EarlyMethod; params: string; given: EarlyAnswered | undefined }>();
  /** the requests answered early not yet met here, in the order they were read */
  #unmet: EarlyAnswered[];
  readonly #idPrefix = `mcpbox-early-${randomBytes(8).toString("hex")}-`;
  #nextId = 0;
  #listAsked = false;
  #watching: boolean;

  constructor(stdin: Readable, stdout: Writable, maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES, early?: EarlyHandover) {
    this.#in = stdin;
    this.#out = stdout;
    this.#max = maxMessageBytes;
    this.#early = early;
    this.#watching = early?.record !== undefined;
    this.#unmet = [...(early?.answered ?? [])];
  }

  async start(): Promise<void> {
    this.#in.on("data", this.#onData);
    this.#in.on("end", this.#onEnd);
    this.#in.on("close", this.#onEnd);
    this.#in.on("error", this.#onEnd);
    this.#out.on("error", this.#onEnd);
    const early = this.#early;
    if (!early) return;
    // what was read before is handled first, in order, as if it came now (the stream was paused meanwhile). A client
    // sends nothing after its initialize until that is answered: what it sent after the initialize answered early
    // waits for the gateway's own answer to it, as it would have, and so does the rest of stdin
    const end = early.initializeEnd ?? early.buffered.length;
    this.#held = early.buffered.subarray(end);
    if (end > 0) this.#onData(early.buffered.subarray(0, end));
    if (early.initializeEnd === undefined) this.#release();
  }

  /** What came after an initialize answered early, once the gateway answered it too; then stdin as usual. */
  #held: Buffer | undefined;
  #release(): void {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    if (held.length > 0) this.#onData(held);
    if (this.#early!.ended) this.#onEnd();
    else this.#in.resume();
  }

  #onData = (chunk: Buffer | string): void => {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    const nl = buf.indexOf(10);
    // several messages in one read: what they make the gateway write leaves once they are all handled (turn-writes.ts)
    if (nl !== -1 && buf.indexOf(10, nl + 1) !== -1) chunkOfLines(() => this.#lines(buf, nl));
    else this.#lines(buf, nl);
  };

  /** The lines of one read, `nl` its first newline; what follows the last newline waits for the next read. */
  #lines(buf: Buffer, nl: number): void {
    let start = 0;
    for (; nl !== -1; nl = buf.indexOf(10, start)) {
      if (this.#chunks.length === 0 && !this.#skipping && nl - start <= this.#max) this.#line(buf.toString("utf8", start, nl));
      else {
        this.#take(buf.subarray(start, nl));
        if (!this.#skipping) this.#line(Buffer.concat(this.#chunks).toString("utf8"));
        this.#chunks = [];
        this.#size = 0;
        this.#skipping = false;
      }
      start = nl + 1;
    }
    if (start < buf.length) this.#take(start === 0 ? buf : buf.subarray(start));
  }

  #take(part: Buffer): void {
    if (this.#skipping || part.length === 0) return;
    if (this.#size + part.length > this.#max) {
      this.#chunks = [];
      this.#size = 0;
      this.#skipping = true;
      this.#reject(ErrorCode.InvalidRequest, `message larger than ${this.#max} bytes dropped`);
      return;
    }
    this.#chunks.push(part);
    this.#size += part.length;
  }

  #line(line: string): void {
    try {
      this.#handle(line);
    } catch (e) {
      // one bad message must not stop the gateway: it is refused like any other invalid one
      this.#reject(ErrorCode.InternalError, `mcpbox could not handle this message: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  #handle(line: string): void {
    if (nestedDeeperThan(line)) return this.#reject(ErrorCode.InvalidRequest, `Invalid request: nested deeper than ${MAX_JSON_DEPTH} levels`);
    let json: unknown;
    try {
      json = JSON.parse(line); // JSON whitespace includes the \r of a CRLF
    } catch {
      if (line.trim() !== "") this.#reject(ErrorCode.ParseError, "Parse error: not JSON"); // blank lines are skipped
      return;
    }
    if (this.#watching) json = this.#asking(json);
    if (this.intercept?.(json)) return;
    if (!isSpecType.JSONRPCMessage(json)) {
      const id = (json as { id?: unknown } | null)?.id;
      if (typeof id === "string" || typeof id === "number") this.#reject(ErrorCode.InvalidRequest, "Invalid request", id);
      else if (id === undefined) this.#reject(ErrorCode.InvalidRequest, "Invalid request: not a JSON-RPC message");
      return;
    }
    this.onmessage?.(json);
  }

  /**
   * Notes the client's initialize and first tools/list (no cursor): the gateway's answers to them are recorded. Such a
   * request goes on under an id of this transport's (#asked); the one answered early is the next of #unmet, met in the
   * order read (early-stdio.ts answers an initialize first and a tools/list next, nothing between them).
   */
  #asking(json: unknown): unknown {
    const m = json as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { cursor?: unknown; requestId?: unknown } } | null;
    if (m && typeof m === "object" && m.method === "notifications/cancelled" && m.id === undefined) return this.#cancelled(m);
    if (!m || typeof m !== "object" || Array.isArray(m) || (typeof m.id !== "string" && typeof m.id !== "number") || typeof m.method !== "string") return json;
    const next = this.#unmet[0];
    let noted: { method: EarlyMethod; params: string; given: EarlyAnswered | undefined } | undefined;
    if (next && next.key === idKey(m.id) && next.method === m.method) {
      this.#unmet.shift();
      noted = { method: next.method, params: next.params, given: next };
      if (m.method === "tools/list") this.#listAsked = true;
    } else if (this.#asked.size >= 4) return json;
    else if (m.method === "initialize") noted = { method: "initialize", params: JSON.stringify(m.params ?? null), given: undefined };
    else if (m.method === "tools/list" && !this.#listAsked) {
      this.#listAsked = true;
      if (m.params?.cursor === undefined) noted = { method: "tools/list", params: JSON.stringify(m.params ?? null), given: undefined };
    }
    if (!noted) return json;
    const id = `${this.#idPrefix}${this.#nextId++}`;
    this.#asked.set(id, { clientId: m.id, ...noted });
    return { ...m, id };
  }

  /** A cancel of a noted request the client still waits for (not one answered early) names the id it went on with. */
  #cancelled(m: { params?: { requestId?: unknown } }): unknown {
    const wanted = m.params?.requestId;
    for (const [id, a] of this.#asked) if (!a.given && a.clientId === wanted) return { ...m, params: { ...m.params, requestId: id } };
    return m;
  }

  /**
   * The gateway's answer to a request noted by #asking: recorded for the next start; when it was answered early, not
   * sent (the client has its answer), and when that answer differs from the gateway's, recorded anew and, for a
   * tools/list, followed by list_changed, so the client lists again and gets the gateway's own answer. Any other
   * answer to a noted request is sent with the client's id. Undefined: dropped.
   */
  #answered(message: unknown): unknown {
    const m = message as { id?: unknown; result?: unknown; error?: unknown };
    if (typeof m.id !== "string" || (m.result === undefined && m.error === undefined)) return message;
    const asked = this.#asked.get(m.id);
    if (!asked) return message;
    this.#asked.delete(m.id);
    if (this.#listAsked && this.#asked.size === 0 && this.#unmet.length === 0) this.#watching = false;
    const given = asked.given;
    const result = m.result === undefined ? undefined : JSON.stringify(m.result);
    if (result !== undefined && result !== given?.result) this.#early!.record!.put({ method: asked.method, params: asked.params, result });
    if (!given) return { ...m, id: asked.clientId };
    if (given.method === "initialize") setImmediate(() => this.#release()); // not inside the SDK's send
    if (result !== given.result && given.method === "tools/list") this.sendLine('{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}');
    return undefined;
  }

  #reject(code: number, message: string, id?: string | number): void {
    void this.#write({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: { code, message } });
    this.onerror?.(new Error(message));
  }

  #onEnd = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    this.#in.off("data", this.#onData);
    this.onclose?.();
  };

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  /** droppable: a notification, dropped while the client is not reading (answers never are: memory stays bounded). */
  sendLine(json: string, droppable = false): boolean {
    if (this.#closed || this.#out.destroyed) return false;
    if (droppable && this.#backedUp()) return true;
    this.#cork();
    this.#out.write(json + "\n");
    return true;
  }

  /** the lines of one turn of the event loop after its first leave in one write (jsonrpc/turn-writes.ts) */
  #gather: (() => void) | undefined;
  #cork(): void {
    (this.#gather ??= turnGatherer(this.#out))();
  }

  #backedUp(): boolean {
    return this.#out.writableLength > CAPS.clientQueueBytes;
  }

  #write(message: unknown): Promise<void> {
    if (this.#closed || this.#out.destroyed) return Promise.resolve();
    if (this.#watching && (message = this.#answered(message)) === undefined) return Promise.resolve();
    if (this.#backedUp() && !("id" in (message as object)) && "method" in (message as object)) return Promise.resolve();
    this.#cork();
    return new Promise((resolve) => {
      if (this.#out.write(JSON.stringify(message) + "\n")) resolve();
      else this.#out.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    this.#in.pause();
    this.#onEnd();
  }
}
