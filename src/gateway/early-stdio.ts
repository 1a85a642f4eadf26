/**
 * A stdio client's first requests answered before the gateway's code loads (issue 15: spawn → tools/list, catalog
 * cached). When this set-up has recorded answers (answer-record.ts), stdin is read from the start: an `initialize`,
 * then a first `tools/list`, whose params are exactly those of a recorded answer, get that answer at once; reading
 * stops at the first message that is anything else (or 100 ms after initialize was answered without a list). Nothing
 * is handled here: every line read, answered or not, goes to the gateway's transport at the handover, in order, and
 * the gateway answers each as always (stdio.ts drops its answer to a request answered here, after comparing the two).
 * No SDK here, and no policy: an answer is only ever the gateway's own, given before to the same request.
 */
import type { Readable, Writable } from "node:stream";
import { nestedDeeperThan } from "../jsonrpc/depth.ts";
import type { AnswerRecord, EarlyMethod } from "./answer-record.ts";

/** What the gateway's stdio transport takes over (BoundedStdioTransport). */
export interface EarlyHandover {
  /** every byte read from stdin, answered or not: the transport handles it first */
  buffered: Buffer;
  /** stdin ended while it was read here */
  ended: boolean;
  /** where in `buffered` the line of an initialize answered here ends (what follows it waits for the gateway's answer) */
  initializeEnd: number | undefined;
  /**
   * the requests answered here, in the order read (an initialize, then maybe a tools/list), each with its id (idKey)
   * and the answer given: the transport knows them by their place, since a client may use an answered id again
   */
  answered: EarlyAnswered[];
  /** where the gateway's own answers to these requests are kept for the next start */
  record: AnswerRecord | undefined;
}

export interface EarlyAnswered {
  key: string;
  method: EarlyMethod;
  params: string;
  result: string;
}

export const idKey = (id: string | number): string => `${typeof id}:${id}`;

/** how long after initialize was answered a first tools/list is waited for here */
const LIST_WAIT_MS = 100;
/** how long after the record is read a first message is waited for here (a client writes its initialize at once) */
const FIRST_WAIT_MS = 200;
/** more than this read here (no answerable request in it) and the transport reads the rest */
const READ_CAP = 1024 * 1024;

export class EarlyStdio {
  /** resolves once nothing more is answered here: the gateway's code may load */
  readonly done: Promise<void>;
  readonly #in: Readable;
  readonly #out: Writable;
  readonly #read: Buffer[] = [];
  #size = 0;
  #tail: Buffer[] = [];
  /** the bytes of the whole lines looked at so far */
  #lineEnd = 0;
  #initializeEnd: number | undefined;
  #ended = false;
  #stopped = false;
  #reading = false;
  #record: AnswerRecord | undefined;
  #state: "initialize" | "list" = "initialize";
  #timer: NodeJS.Timeout | undefined;
  readonly #answered: EarlyAnswered[] = [];
  #finish!: () => void;

  constructor(stdin: Readable, stdout: Writable, record: Promise<AnswerRecord | undefined>) {
    this.#in = stdin;
    this.#out = stdout;
    this.done = new Promise((resolve) => (this.#finish = resolve));
    record.then(
      (r) => {
        this.#record = r;
        if (!r || r.empty() || this.#stopped) return this.#stop();
        this.#reading = true;
        this.#in.on("data", this.#onData);
        this.#in.on("end", this.#onEnd);
        this.#in.on("close", this.#onEnd);
        this.#in.on("error", this.#onEnd);
        // a client gone while its early answers are written (EPIPE) is the end of the connection, never an uncaught
        // error of serve: the transport, which has this listener of its own, is not there yet (kept until handover)
        this.#out.on("error", this.#outGone);
        this.#wait(FIRST_WAIT_MS);
      },
      () => this.#stop(),
    );
  }

  /** Stops answering here and gives the transport what was read (call once, before the transport starts). */
  handover(): EarlyHandover {
    this.#stop();
    this.#out.off("error", this.#outGone);
    return { buffered: Buffer.concat(this.#read), ended: this.#ended, initializeEnd: this.#initializeEnd, answered: this.#answered, record: this.#record };
  }

  #onData = (chunk: Buffer | string): void => {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.#read.push(buf);
    this.#size += buf.length;
    if (this.#stopped) return;
    if (this.#size > READ_CAP) return this.#stop();
    // lines are cut in bytes, as the transport cuts them: a character split between reads, or a byte that is no
    // UTF-8, must not move where a line ends (initializeEnd is a byte offset into what was read)
    let start = 0;
    for (let nl = buf.indexOf(10); nl !== -1 && !this.#stopped; nl = buf.indexOf(10, start)) {
      const line = Buffer.concat([...this.#tail, buf.subarray(start, nl)]);
      this.#tail = [];
      this.#lineEnd += line.length + 1;
      start = nl + 1;
      const text = line.toString("utf8");
      if (text.trim() !== "" && !this.#step(text)) this.#stop();
    }
    if (start < buf.length) this.#tail.push(buf.subarray(start));
  };

  /** One whole line: answered (true), or the end of what is answered here (false). */
  #step(line: string): boolean {
    if (nestedDeeperThan(line)) return false;
    let m: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    try {
      m = JSON.parse(line) as typeof m;
    } catch {
      return false;
    }
    if (typeof m !== "object" || m === null || Array.isArray(m) || m.jsonrpc !== "2.0") return false;
    if (this.#state === "list" && m.method === "notifications/initialized" && m.id === undefined) return true;
    const method = this.#state === "initialize" ? "initialize" : "tools/list";
    if (m.method !== method || !isId(m.id) || (m.params !== undefined && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params)))) return false;
    const params = JSON.stringify(m.params ?? null);
    const result = this.#record?.find(method, params);
    if (result === undefined) return false;
    this.#answered.push({ key: idKey(m.id), method, params, result });
    this.#out.write(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${result}}\n`);
    if (method === "tools/list") return false; // all that is answered here
    this.#initializeEnd = this.#lineEnd;
    this.#state = "list";
    this.#wait(LIST_WAIT_MS);
    return true;
  }

  #wait(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#stop(), ms);
    this.#timer.unref();
  }

  #onEnd = (): void => {
    this.#ended = true;
    this.#stop();
  };

  #outGone = (): void => {
    this.#ended = true; // the transport then ends the session at once
    this.#stop();
  };

  #stop(): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    this.#stopped = true;
    this.#in.off("data", this.#onData);
    this.#in.off("end", this.#onEnd);
    this.#in.off("close", this.#onEnd);
    this.#in.off("error", this.#onEnd);
    if (this.#reading && !this.#ended) this.#in.pause(); // what comes next waits in the pipe for the transport
    this.#finish();
  }
}

/** an id the gateway's SDK takes (a string or a safe integer): one it refuses would get an answer here and an error there */
function isId(v: unknown): v is string | number {
  return typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v));
}
