/**
 * Reads Docker's multiplexed attach stream (8-byte frame headers: stream type, 0, 0, 0, big-endian length) into
 * stdout and stderr, each kept up to a cap. Bytes beyond the cap are counted and dropped, so memory stays bounded
 * whatever a program prints. It also spots the launcher's exit trailer (`\0MCPBOX-EXIT:<nonce>:<status>\0`, the last
 * bytes on stderr; see templates/runner/run.py) and keeps it out of stderr. Pure: fed with chunks as they arrive.
 */
const HEADER = 8;
const TAIL = 64;

export interface CappedText {
  readonly text: string;
  /** bytes the program wrote to this stream */
  readonly bytes: number;
  readonly truncated: boolean;
}

class Capped {
  readonly #cap: number;
  readonly #chunks: Buffer[] = [];
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
    this.#chunks.push(Buffer.from(part)); // a copy: the frame buffer is not kept alive
    this.#kept += part.length;
  }

  /** Forgets the last n bytes (the trailer, which is always last). */
  dropLast(n: number): void {
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
    const text = new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(this.#chunks));
    return { text, bytes: this.bytes, truncated: this.bytes > this.#kept };
  }
}

export class OutputCollector {
  readonly #streams: Capped[];
  #pending: Buffer = Buffer.alloc(0);
  /** stream index and bytes left of the frame being read, or undefined between frames */
  #frame: { stream: number; left: number } | undefined;
  readonly #trailer: RegExp | undefined;
  #stderrTail = "";
  /** the exit status the launcher reported, once its trailer arrived */
  exitStatus: number | undefined;

  constructor(maxBytes: number, nonce?: string) {
    this.#streams = [new Capped(maxBytes), new Capped(maxBytes)];
    this.#trailer = nonce === undefined ? undefined : new RegExp(`\0MCPBOX-EXIT:${nonce}:(\\d{1,3})\0$`);
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
      this.#streams[this.#frame.stream]!.push(data.subarray(0, take));
      if (this.#frame.stream === 1) this.#watchStderr(data.subarray(0, take));
      this.#frame.left -= take;
      data = data.subarray(take);
      if (this.#frame.left === 0) this.#frame = undefined;
    }
  }

  #watchStderr(part: Buffer): void {
    if (!this.#trailer || this.exitStatus !== undefined) return;
    this.#stderrTail = (this.#stderrTail + part.toString("latin1")).slice(-TAIL);
    const m = this.#trailer.exec(this.#stderrTail);
    if (!m) return;
    this.exitStatus = Number(m[1]);
    this.#streams[1]!.dropLast(m[0].length);
  }

  get stdout(): CappedText {
    return this.#streams[0]!.result();
  }

  get stderr(): CappedText {
    return this.#streams[1]!.result();
  }
}
