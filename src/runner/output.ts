/**
 * Reads Docker's multiplexed attach stream (8-byte frame headers: stream type, 0, 0, 0, big-endian length) into
 * stdout and stderr, each kept up to a cap. Bytes beyond the cap are counted and dropped, so memory stays bounded
 * whatever a program prints. It reads the launcher's ready mark at the start of each stream
 * (`\0MCPBOX-READY:<nonce>\0`, the nonce 16 hex digits the launcher picked, the same on both) and then spots its exit
 * trailer (`\0MCPBOX-EXIT:<nonce>:<status>:<oom kills>\0`, the last bytes of both streams; see templates/runner/run.py),
 * keeping both out of the output: the engine copies the two streams independently, so the output is complete only once
 * the trailer came on both. Pure.
 */
const HEADER = 8;
const TAIL = 64;
/** What the launcher writes first on stdout and on stderr, around its nonce: seeing both proves both streams reach mcpbox. */
const READY_START = Buffer.from("\0MCPBOX-READY:", "latin1");
const READY_LENGTH = READY_START.length + 16 + 1;
const READY = /^\0MCPBOX-READY:([0-9a-f]{16})\0$/;

/** Strips the ready mark from the start of one stream and keeps its nonce; anything else there is passed on as output. */
class ReadyPrefix {
  #seen: Buffer | undefined = Buffer.alloc(0);
  nonce: string | undefined;

  /** The part of `data` that is output. */
  feed(data: Buffer): Buffer {
    if (!this.#seen) return data;
    const seen = Buffer.concat([this.#seen, data]);
    const n = Math.min(seen.length, READY_START.length);
    if (!seen.subarray(0, n).equals(READY_START.subarray(0, n))) {
      this.#seen = undefined;
      return seen;
    }
    if (seen.length < READY_LENGTH) {
      this.#seen = seen;
      return Buffer.alloc(0);
    }
    this.#seen = undefined;
    const m = READY.exec(seen.subarray(0, READY_LENGTH).toString("latin1"));
    if (!m) return seen;
    this.nonce = m[1];
    return seen.subarray(READY_LENGTH);
  }
}

export interface CappedText {
  readonly text: string;
  /** bytes the program wrote to this stream */
  readonly bytes: number;
  readonly truncated: boolean;
}

/**
 * A part shorter than this is copied into a shared block, not kept as a Buffer of its own (~100 bytes of heap each):
 * a program writing a byte at a time gets a frame per byte or two, and its 1 MiB of output was ~200 MB of Buffers
 * (test/security/runner-output-pieces.test.ts).
 */
const COPY_BELOW = 1024;
const BLOCK = 64 * 1024;

class Capped {
  readonly #cap: number;
  readonly #chunks: Buffer[] = [];
  /** where small parts are copied, and how much of it they fill (not yet in #chunks) */
  #block: Buffer | undefined;
  #blockUsed = 0;
  #kept = 0;
  bytes = 0;

  constructor(cap: number) {
    this.#cap = cap;
  }

  push(data: Buffer): void {
    this.bytes += data.length;
    const room = this.#cap - this.#kept;
    if (room <= 0) return;
    const part = data.length <= room ? data : data.subarray(0, room);
    this.#kept += part.length;
    if (part.length >= COPY_BELOW) {
      this.#flush();
      this.#chunks.push(Buffer.from(part)); // a copy: the frame buffer is not kept alive
      return;
    }
    if (!this.#block || this.#block.length - this.#blockUsed < part.length) {
      this.#flush();
      this.#block = Buffer.allocUnsafe(Math.min(BLOCK, room)); // never more than the cap leaves room for
    }
    part.copy(this.#block, this.#blockUsed);
    this.#blockUsed += part.length;
  }

  /** The small parts copied so far become one chunk (the rest of their block stays for the next ones). */
  #flush(): void {
    if (!this.#block || this.#blockUsed === 0) return;
    this.#chunks.push(this.#block.subarray(0, this.#blockUsed));
    this.#block = this.#block.subarray(this.#blockUsed);
    this.#blockUsed = 0;
  }

  /** Forgets the last n bytes (the trailer, which is always last). */
  dropLast(n: number): void {
    this.#flush();
    this.bytes -= n;
    let extra = this.#kept - this.bytes;
    while (extra > 0) {
      const last = this.#chunks.at(-1)!;
      const cut = Math.min(extra, last.length);
      if (cut === last.length) this.#chunks.pop();
      else this.#chunks[this.#chunks.length - 1] = last.subarray(0, last.length - cut);
      this.#kept -= cut;
      extra -= cut;
    }
  }

  result(): CappedText {
    this.#flush();
    const text = new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(this.#chunks));
    return { text, bytes: this.bytes, truncated: this.bytes > this.#kept };
  }
}

export class OutputCollector {
  readonly #streams: Capped[];
  readonly #prefixes = [new ReadyPrefix(), new ReadyPrefix()];
  #pending: Buffer = Buffer.alloc(0);
  /** stream index and bytes left of the frame being read, or undefined between frames */
  #frame: { stream: number; left: number } | undefined;
  #trailer: RegExp | undefined;
  readonly #tails = ["", ""];
  readonly #ended = [false, false];
  /** the exit status the launcher reported, once its trailer arrived on both streams */
  exitStatus: number | undefined;
  #status: number | undefined;
  /** processes the kernel killed for lack of memory, as the launcher reported them */
  oomKills = 0;

  constructor(maxBytes: number) {
    this.#streams = [new Capped(maxBytes), new Capped(maxBytes)];
  }

  push(chunk: Buffer): void {
    let data = this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = Buffer.alloc(0);
    while (data.length > 0) {
      if (!this.#frame) {
        if (data.length < HEADER) {
          this.#pending = Buffer.from(data);
          return;
        }
        this.#frame = { stream: data[0] === 2 ? 1 : 0, left: data.readUInt32BE(4) };
        data = data.subarray(HEADER);
        continue;
      }
      const take = Math.min(this.#frame.left, data.length);
      const part = this.#prefixes[this.#frame.stream]!.feed(data.subarray(0, take));
      this.#streams[this.#frame.stream]!.push(part);
      this.#watchTrailer(this.#frame.stream, part);
      this.#frame.left -= take;
      data = data.subarray(take);
      if (this.#frame.left === 0) this.#frame = undefined;
    }
  }

  #watchTrailer(stream: number, part: Buffer): void {
    if (!this.#trailer) {
      const [out, err] = this.#prefixes.map((p) => p.nonce);
      if (out === undefined || out !== err) return; // a trailer counts only after both marks, under their nonce
      this.#trailer = new RegExp(`\0MCPBOX-EXIT:${out}:(\\d{1,3}):(\\d{1,9})\0$`);
    }
    if (this.#ended[stream]) return;
    this.#tails[stream] = (this.#tails[stream] + part.toString("latin1")).slice(-TAIL);
    const m = this.#trailer.exec(this.#tails[stream]!);
    if (!m) return;
    this.#ended[stream] = true;
    this.#status = Number(m[1]);
    this.oomKills = Math.max(this.oomKills, Number(m[2]));
    this.#streams[stream]!.dropLast(m[0].length);
    if (this.#ended[0] && this.#ended[1]) this.exitStatus = this.#status;
  }

  /** Whether the ready mark arrived on stdout and on stderr (with one nonce: a second mark with another is no mark). */
  get ready(): { stdout: boolean; stderr: boolean } {
    const [out, err] = this.#prefixes.map((p) => p.nonce);
    const agree = out === undefined || err === undefined || out === err;
    return { stdout: out !== undefined && agree, stderr: err !== undefined && agree };
  }

  get stdout(): CappedText {
    return this.#streams[0]!.result();
  }

  get stderr(): CappedText {
    return this.#streams[1]!.result();
  }
}
