/**
 * Splits a byte stream into lines with bounded memory: a line longer than maxLineBytes is not kept; only its first
 * and last few bytes and its length are reported, whatever the other side prints.
 */
export interface LineSink {
  line(bytes: Buffer): void;
  oversize(info: OversizeLine): void;
}

export interface OversizeLine {
  /** the first bytes of the line (up to keepBytes) */
  head: Buffer;
  /** the last bytes of the line (up to keepBytes) */
  tail: Buffer;
  /** the whole line's length so far (at the end: the line's length) */
  bytes: number;
}

const NEWLINE = 0x0a;
/**
 * A piece of an unfinished line shorter than this is copied, not kept as a view: a view costs ~100 bytes of heap
 * whatever its length, and a server that writes a byte at a time gets a frame (a piece) per byte or two, so views alone
 * held ~100 times the line's bytes (boundary 5, test/security/line-pieces.test.ts).
 */
const COPY_BELOW = 1024;
/** The first pieces of a line are kept as views whatever their size (a line in one to a few reads: nothing copied). */
const VIEWS_FIRST = 8;
/** Where small pieces are copied: this much at a time (a line that never gets one costs nothing). */
const SMALL_BLOCK = 64 * 1024;

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** room for the small pieces of the current line, and how much of it they fill (not yet in parts) */
  private small: Buffer | undefined;
  private smallUsed = 0;
  private over: OversizeLine | undefined;
  private readonly maxLineBytes: number;
  private readonly keepBytes: number;
  private readonly sink: LineSink;

  constructor(maxLineBytes: number, sink: LineSink, keepBytes = 256) {
    this.maxLineBytes = maxLineBytes;
    this.sink = sink;
    this.keepBytes = Math.min(keepBytes, maxLineBytes);
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      this.take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      this.finishLine();
      start = nl + 1;
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.size > 0 || this.over) this.finishLine();
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.over) {
      this.over.bytes += piece.length;
      this.over.tail = lastBytes([this.over.tail, piece], this.keepBytes);
    } else if (this.size + piece.length > this.maxLineBytes) {
      this.flushSmall();
      const all = [...this.parts, piece];
      this.over = { head: firstBytes(all, this.keepBytes), tail: lastBytes(all, this.keepBytes), bytes: this.size + piece.length };
      this.parts = [];
      this.size = 0;
      this.small = undefined;
    } else if (piece.length >= COPY_BELOW || (this.parts.length < VIEWS_FIRST && this.smallUsed === 0)) {
      this.flushSmall();
      this.parts.push(piece);
      this.size += piece.length;
    } else {
      if (!this.small || this.small.length - this.smallUsed < piece.length) {
        this.flushSmall();
        this.small = Buffer.allocUnsafe(SMALL_BLOCK);
      }
      piece.copy(this.small, this.smallUsed);
      this.smallUsed += piece.length;
      this.size += piece.length;
    }
  }

  /** The small pieces copied so far become one part (the rest of their block stays for the next ones). */
  private flushSmall(): void {
    if (!this.small || this.smallUsed === 0) return;
    this.parts.push(this.small.subarray(0, this.smallUsed));
    this.small = this.small.subarray(this.smallUsed);
    this.smallUsed = 0;
  }

  private finishLine(): void {
    this.flushSmall();
    this.small = undefined; // a view of it may be the line handed on: the next line's small pieces get a block of their own
    const over = this.over;
    const parts = this.parts;
    this.over = undefined;
    this.parts = [];
    this.size = 0;
    if (over) return this.sink.oversize(over);
    let line = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    if (line.at(-1) === 0x0d) line = line.subarray(0, -1); // CRLF
    this.sink.line(line);
  }
}

/** A copy (not a view: the big chunk may be freed) of the first n bytes of the pieces. */
function firstBytes(pieces: Buffer[], n: number): Buffer {
  return Buffer.from(Buffer.concat(pieces, Math.min(n, total(pieces))));
}

function lastBytes(pieces: Buffer[], n: number): Buffer {
  const last = pieces.at(-1)!;
  if (last.length >= n) return Buffer.from(last.subarray(last.length - n));
  const joined = Buffer.concat(pieces);
  return Buffer.from(joined.subarray(Math.max(0, joined.length - n)));
}

function total(pieces: Buffer[]): number {
  return pieces.reduce((sum, p) => sum + p.length, 0);
}
