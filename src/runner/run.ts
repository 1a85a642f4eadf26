/**
 * One run in a started container: send the request on stdin, collect capped output, kill at the wall-clock timeout
 * or on cancellation. The answer comes as soon as the launcher's exit trailer arrives (status and OOM kills, while the
 * container still runs: the engine may drop the last output of a container that stops); without one (timeout,
 * cancellation, a failed launcher) the exit state and OOM flag are read from the engine once the container stopped.
 * The caller removes the container afterwards, whatever happened.
 */
import type { Prepared } from "./prepare.ts";
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

export async function runIn(prepared: Prepared, req: RunRequest, opts: RunOptions): Promise<RunResult> {
  const { shot, output } = prepared;
  let unsubscribe = () => {};
  const trailer = new Promise<"trailer">((resolve) => {
    const check = () => output.exitStatus !== undefined && resolve("trailer");
    unsubscribe = prepared.onOutput(check);
    check();
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
  let how: "trailer" | "exit";
  try {
    shot.stdio.end(requestPayload(req));
    how = await Promise.race([trailer, shot.exited.then(() => "exit" as const)]);
  } finally {
    clearTimeout(timer);
    unsubscribe();
    opts.signal?.removeEventListener("abort", onAbort);
  }
  const durationMs = Math.round(performance.now() - started);
  if (how === "exit") await Promise.race([prepared.ended, delay(DRAIN_MS)]);
  shot.stdio.destroy();
  const reported = how === "trailer" && !timedOut && !cancelled;
  const state = reported ? { exitCode: output.exitStatus!, oomKilled: output.oomKills > 0 } : await shot.state({ killedByUs: timedOut || cancelled });
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
