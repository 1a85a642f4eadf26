/**
 * One run in a started container: send the request on stdin, collect capped output, kill at the wall-clock timeout
 * or on cancellation, then read the exit state. The caller removes the container afterwards, whatever happened.
 */
import type { OneShot } from "../docker/run-once.ts";
import { OutputCollector } from "./output.ts";
import { requestPayload, type RunRequest } from "./request.ts";

export interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  durationMs: number;
  timedOut: boolean;
  oomKilled: boolean;
  cancelled: boolean;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  stdoutBytes: number;
  stderrBytes: number;
}

export interface RunOptions {
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
}

/** After the container stopped, how long to wait for the last output still on its way. */
const DRAIN_MS = 2000;

export async function runIn(shot: OneShot, req: RunRequest, opts: RunOptions): Promise<RunResult> {
  const output = new OutputCollector(opts.maxOutputBytes);
  const outputEnded = new Promise<void>((resolve) => {
    shot.stdio.on("data", (chunk: Buffer) => output.push(chunk));
    shot.stdio.once("end", resolve);
    shot.stdio.once("close", resolve);
    shot.stdio.once("error", () => resolve());
  });
  let timedOut = false;
  let cancelled = false;
  const stop = (why: "timeout" | "cancel") => {
    if (why === "timeout") timedOut = true;
    else cancelled = true;
    shot.kill().catch(() => {});
  };
  const started = performance.now();
  const timer = setTimeout(() => stop("timeout"), opts.timeoutMs);
  const onAbort = () => stop("cancel");
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  try {
    shot.stdio.end(requestPayload(req));
    await shot.exited;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
  const durationMs = Math.round(performance.now() - started);
  await Promise.race([outputEnded, delay(DRAIN_MS)]);
  shot.stdio.destroy();
  const state = await shot.state();
  const stdout = output.stdout;
  const stderr = output.stderr;
  return {
    stdout: stdout.text,
    stderr: stderr.text,
    exitCode: state.exitCode,
    durationMs,
    timedOut,
    oomKilled: state.oomKilled,
    cancelled,
    stdoutTruncated: stdout.truncated,
    stderrTruncated: stderr.truncated,
    stdoutBytes: stdout.bytes,
    stderrBytes: stderr.bytes,
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
