/**
 * The audit log (SPEC 4.7): one JSON line per call in `<folder>/<YYYY-MM-DD>.jsonl`, folder `$MCPBOX_HOME/audit`
 * or `audit.path`. Arguments arrive here already redacted and cut (see redact.ts). Readable by its user only.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { CallOutcome } from "./events.ts";
import type { ResolvedConfig } from "../config/resolve.ts";

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

export interface AuditSink {
  write(record: AuditRecord): void;
  close(): Promise<void>;
}

export function mcpboxHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.MCPBOX_HOME || path.join(os.homedir(), ".mcpbox");
}

export function auditFolder(config: Pick<ResolvedConfig, "audit">, env: NodeJS.ProcessEnv = process.env): string {
  return config.audit.path ?? path.join(mcpboxHome(env), "audit");
}

/** The sink for this config, or a no-op one when `audit.enabled` is false. */
export function openAudit(config: Pick<ResolvedConfig, "audit">, env: NodeJS.ProcessEnv = process.env): AuditSink {
  if (!config.audit.enabled) return { write() {}, close: async () => {} };
  return new AuditFile(auditFolder(config, env));
}

class AuditFile implements AuditSink {
  readonly #folder: string;
  #day = "";
  #stream: fs.WriteStream | undefined;

  constructor(folder: string) {
    this.#folder = folder;
  }

  write(record: AuditRecord): void {
    const day = record.time.slice(0, 10);
    if (day !== this.#day || !this.#stream) this.#open(day);
    this.#stream!.write(JSON.stringify(record) + "\n");
  }

  #open(day: string): void {
    this.#stream?.end();
    fs.mkdirSync(this.#folder, { recursive: true, mode: 0o700 });
    this.#day = day;
    this.#stream = fs.createWriteStream(path.join(this.#folder, `${day}.jsonl`), { flags: "a", mode: 0o600 });
    this.#stream.on("error", (e) => process.stderr.write(`mcpbox: audit log: ${e.message}\n`));
  }

  close(): Promise<void> {
    const s = this.#stream;
    this.#stream = undefined;
    return new Promise((resolve) => (s ? s.end(resolve) : resolve()));
  }
}
