/**
 * A started run container with its output already being read: the launcher first writes a ready mark on stdout and
 * on stderr. Seeing both proves both streams reach mcpbox before any code is sent; a container whose streams do not
 * connect is replaced, never used.
 */
import type { OneShot } from "../docker/run-once.ts";
import { OutputCollector } from "./output.ts";

export interface Prepared {
  readonly shot: OneShot;
  readonly output: OutputCollector;
  /** resolves once the attach stream ended (or failed) */
  readonly ended: Promise<void>;
  /** calls `listener` after each chunk of output; returns the unsubscribe */
  onOutput(listener: () => void): () => void;
}

/** After one ready mark, how long the other may take before the container counts as broken. */
const OTHER_MARK_MS = 3000;

export function prepare(shot: OneShot, maxOutputBytes: number): Prepared {
  const output = new OutputCollector(maxOutputBytes);
  const listeners = new Set<() => void>();
  shot.stdio.on("data", (chunk: Buffer) => {
    output.push(chunk);
    for (const l of listeners) l();
  });
  const ended = new Promise<void>((resolve) => {
    shot.stdio.once("end", resolve);
    shot.stdio.once("close", resolve);
    shot.stdio.once("error", () => resolve());
  });
  return {
    shot,
    output,
    ended,
    onOutput(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** True once both ready marks arrived; false when the container stopped, or `limitMs` passed, or one mark is missing. */
export function whenReady(p: Prepared, limitMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timers: NodeJS.Timeout[] = [];
    let unsubscribe = () => {};
    const done = (ok: boolean) => {
      for (const t of timers) clearTimeout(t);
      unsubscribe();
      resolve(ok);
    };
    const check = () => {
      const { stdout, stderr } = p.output.ready;
      if (stdout && stderr) done(true);
      else if ((stdout || stderr) && timers.length === 1) timers.push(setTimeout(() => done(false), OTHER_MARK_MS));
    };
    timers.push(setTimeout(() => done(false), limitMs));
    unsubscribe = p.onOutput(check);
    void p.ended.then(() => done(false));
    void p.shot.exited.then(() => done(false));
    check();
  });
}
