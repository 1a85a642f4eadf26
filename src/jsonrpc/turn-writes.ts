/**
 * One write per turn of the event loop for a stream of JSON-RPC lines (issue 15). The first line a turn writes leaves
 * at once (a lone message waits for nothing, not even the bookkeeping after it); what the same turn writes after it is
 * gathered (cork) and leaves in one write when the turn ends (uncork on the next tick): 16 messages in one turn cost
 * two syscalls and two wake-ups of the reader instead of 16. Order is kept. Used by both stdio transports.
 * A reader that got several lines in one chunk handles them inside `chunkOfLines`: then the first line a stream is
 * given waits too, for the end of that chunk (not of the turn), and the chunk's lines leave in one write per stream,
 * as a byte copier passes the chunk on in one: one syscall and one wake-up of each reader fewer per chunk.
 */
import type { Writable } from "node:stream";

/** Call before each write to `out`. */
export function turnGatherer(out: Writable): () => void {
  let turn = false;
  let corked = false;
  /** the chunk (chunkOfLines) whose end uncorks this stream, if any */
  let chunk = 0;
  const flush = () => {
    if (!corked) return;
    corked = false;
    out.uncork();
  };
  // one function for every turn (no closure made per write, issue 15)
  const endTurn = () => {
    turn = false;
    flush();
  };
  return () => {
    if (!turn) {
      turn = true;
      process.nextTick(endTurn);
      if (depth === 0) return;
    }
    if (!corked) {
      corked = true;
      out.cork();
    }
    if (depth > 0 && chunk !== chunkId) {
      chunk = chunkId;
      flushes.push(flush);
    }
  };
}

let depth = 0;
let chunkId = 0;
const flushes: Array<() => void> = [];

/**
 * Runs `handle` (the handling of one chunk that holds more than one line): what it writes to the streams of turn
 * gatherers leaves when it returns or throws, one write per stream.
 */
export function chunkOfLines(handle: () => void): void {
  if (depth++ === 0) chunkId++;
  try {
    handle();
  } finally {
    if (--depth === 0) {
      for (let i = 0; i < flushes.length; i++) flushes[i]!();
      flushes.length = 0;
    }
  }
}

/** True when `bytes` holds two newlines or more (found with two native searches, no scan in JavaScript). */
export function severalLines(bytes: Buffer): boolean {
  const first = bytes.indexOf(10);
  return first !== -1 && bytes.indexOf(10, first + 1) !== -1;
}
