/**
 * Docker's multiplexed attach stream (no TTY): frames of an 8-byte header (the stream: 0 stdin, 1 stdout, 2 stderr;
 * three zero bytes; the payload's length, uint32 big-endian) and then the payload. Each piece of a payload is handed
 * on as it arrives, as a view of the chunk it came in (no copy, no waiting for the rest of a frame: what reads it is a
 * byte stream). A header that names no stream means the connection is not multiplexed (a TTY) or lost its place: from
 * there on everything, that header included, is stdout, as docker-modem's demuxStream does; like it, stdin frames
 * count as stderr.
 */
export type FramePiece = (stream: "stdout" | "stderr", bytes: Buffer) => void;

const HEADER = 8;

export class FrameSplitter {
  readonly #piece: FramePiece;
  /** a header split across chunks, collected here */
  readonly #header = Buffer.alloc(HEADER);
  #headerBytes = 0;
  /** the stream of the frame being read, and how many of its payload bytes are still to come */
  #stream: "stdout" | "stderr" = "stdout";
  #left = 0;
  #raw = false;

  constructor(piece: FramePiece) {
    this.#piece = piece;
  }

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#raw) return this.#piece("stdout", at === 0 ? chunk : chunk.subarray(at));
      if (this.#left > 0) {
        const n = Math.min(this.#left, chunk.length - at);
        this.#piece(this.#stream, n === chunk.length ? chunk : chunk.subarray(at, at + n));
        this.#left -= n;
        at += n;
        continue;
      }
      let header: Buffer;
      if (this.#headerBytes === 0 && chunk.length - at >= HEADER) {
        header = chunk.subarray(at, at + HEADER);
        at += HEADER;
      } else {
        const n = Math.min(HEADER - this.#headerBytes, chunk.length - at);
        chunk.copy(this.#header, this.#headerBytes, at, at + n);
        this.#headerBytes += n;
        at += n;
        if (this.#headerBytes < HEADER) return;
        this.#headerBytes = 0;
        header = this.#header;
      }
      const stream = header[0];
      if (stream !== 0 && stream !== 1 && stream !== 2) {
        this.#raw = true;
        this.#piece("stdout", Buffer.from(header)); // a copy: the collected header's buffer is reused
        continue;
      }
      this.#stream = stream === 1 ? "stdout" : "stderr";
      this.#left = header.readUInt32BE(4);
    }
  }
}
