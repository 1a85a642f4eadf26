/**
 * The audit log (SPEC 4.7): one JSON line per call in `<folder>/<YYYY-MM-DD>.jsonl`, folder `$MCPBOX_HOME/audit`
 * or `audit.path`. Arguments arrive here already redacted and cut (see redact.ts). Readable by its user only.
 */
import fs from "node:fs";
import path from "node:path";
import type { CallOutcome } from "../monitor/events.ts";
import type { ResolvedConfig } from "../config/resolve.ts";
import { homeFolder, mcpboxHome, privateFolder, UntrustedFolder } from "../home.ts";

export interface AuditRecord {
  time: string;
  session: string;
  server: string;
  method: string;
  tool?: string | undefined;
  arguments?: unknown;
  outcome: CallOutcome;
  durationMs: number;
  bytes: number;
  reason?: string | undefined;
}

/** An egress connection's line (SPEC 4.7 `method: "egress"`, made by src/egress/record.ts auditLine) */
export type EgressAuditLine = Readonly<Record<string, unknown>> & { readonly time: string };

export interface AuditSink {
  write(record: AuditRecord | EgressAuditLine): void;
  close(): Promise<void>;
}

/**
 * `new Date(ms).toISOString()`, with the part up to the second kept from the previous call (Date's formatting goes
 * through printf: the largest part of an audit line's cost, once per call).
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms)) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    const full = new Date(ms).toISOString();
    if (full.length !== 24) return full; // a year past 9999 or before 0: not worth keeping
    lastSecond = second;
    lastPrefix = full.slice(0, 20);
  }
  const milli = ms - second * 1000;
  return `${lastPrefix}${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
}
let lastSecond = Number.NaN;
let lastPrefix = "";

export function auditFolder(config: Pick<ResolvedConfig, "audit">, env: NodeJS.ProcessEnv = process.env): string {
  return config.audit.path ?? path.join(mcpboxHome(env), "audit");
}

/**
 * The sink for this config, or a no-op one when `audit.enabled` is false. A folder someone else could write into is
 * refused here, before the gateway starts; one that merely cannot be written is reported at the first line.
 */
export function openAudit(config: Pick<ResolvedConfig, "audit">, env: NodeJS.ProcessEnv = process.env): AuditSink {
  if (!config.audit.enabled) return { write() {}, close: async () => {} };
  const folder = () => (config.audit.path === undefined ? homeFolder("audit", env) : privateFolder(config.audit.path, "audit.path"));
  try {
    folder();
  } catch (e) {
    if (e instanceof UntrustedFolder) throw e;
  }
  drainAtExit();
  return new AuditFile(folder);
}

/** Audit files with lines not yet written: the process's exit writes them (an exit handler may only do synchronous work). */
const pending = new Set<AuditFile>();
let exitHook = false;
function drainAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const file of [...pending]) file.drain();
  });
}

/** Appending, never through a symbolic link planted as the day file, and only to a regular file of this user. */
function openDayFile(file: string): number {
  const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ELOOP") throw new Error(`${file} is a symbolic link; mcpbox does not write through links (remove it)`);
    throw e;
  }
  const st = fs.fstatSync(fd);
  const uid = process.getuid?.();
  if (!st.isFile() || (uid !== undefined && st.uid !== uid)) {
    fs.closeSync(fd);
    throw new Error(`${file} is not a regular file of yours (remove it)`);
  }
  return fd;
}

/**
 * Lines are gathered and appended once per turn of the event loop with one synchronous write (and at close and at the
 * process's exit): a burst of calls costs one write, no line waits on a thread-pool round trip, and a line is in the
 * file (the kernel's) by the end of the turn its call ended in, so a kill of serve loses none. Delaying the write by
 * a few milliseconds to share it between calls one after the other saved nothing measurable in a real serve (issue 15)
 * and would lose those lines to a kill. A file that cannot be written is reported on stderr once per day-file; calls go on.
 */
class AuditFile implements AuditSink {
  readonly #folder: () => string;
  #day = "";
  #fd: number | undefined;
  #failed = false;
  #lines: string[] = [];
  #flush: NodeJS.Immediate | undefined;

  constructor(folder: () => string) {
    this.#folder = folder;
  }

  write(record: AuditRecord | EgressAuditLine): void {
    const day = record.time.slice(0, 10);
    if (day !== this.#day) this.#open(day);
    this.#lines.push(JSON.stringify(record) + "\n");
    if (this.#flush) return;
    this.#flush = setImmediate(() => this.#drain());
    pending.add(this); // a process.exit() in this turn: the exit hook writes them
  }

  drain(): void {
    this.#drain();
  }

  #drain(): void {
    clearImmediate(this.#flush);
    this.#flush = undefined;
    pending.delete(this);
    const text = this.#lines.join("");
    this.#lines = [];
    if (text === "" || this.#fd === undefined) return;
    try {
      fs.writeSync(this.#fd, text);
    } catch (e) {
      this.#fail(e);
    }
  }

  #open(day: string): void {
    this.#drain(); // the previous day's lines go to the previous day's file
    this.#closeFd();
    this.#day = day;
    this.#failed = false;
    try {
      this.#fd = openDayFile(path.join(this.#folder(), `${day}.jsonl`));
    } catch (e) {
      this.#fail(e);
    }
  }

  #fail(e: unknown): void {
    const why = e instanceof Error ? e.message : String(e);
    if (!this.#failed) process.stderr.write(`mcpbox: audit log: ${why}; calls go on without audit lines (check audit.path and its permissions)\n`);
    this.#failed = true;
  }

  #closeFd(): void {
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    this.#fd = undefined;
  }

  async close(): Promise<void> {
    this.#drain();
    this.#closeFd();
  }
}
