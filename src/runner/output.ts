/**
 * Reads Docker's multiplexed attach stream (8-byte frame headers: stream type, 0, 0, 0, big-endian length) into
 * stdout and stderr, each kept up to a cap. Bytes beyond the cap are counted and dropped, so memory stays bounded
 * whatever a program prints. Pure: fed with chunks as they arrive.
 */
const HEADER = 8;

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
      this.#streams[this.#frame.stream]!.push(data.subarray(0, take));
      this.#frame.left -= take;
      data = data.subarray(take);
      if (this.#frame.left === 0) this.#frame = undefined;
    }
  }

  get stdout(): CappedText {
    return this.#streams[0]!.result();
  }

  get stderr(): CappedText {
    return this.#streams[1]!.result();
  }
}
