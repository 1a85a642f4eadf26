/**
 * One egress connection as the proxy reports it (one JSON line on its stdout) and as the gateway's audit log takes it
 * (SPEC 4.7 `method: "egress"`). The proxy is mcpbox's code, but host names come from the server: every field is
 * checked and bounded again when read, so a hostile server cannot forge a line or flood the log with one.
 */
export interface EgressRecord {
  readonly time: string;
  readonly server: string;
  readonly host: string;
  readonly port: number;
  readonly outcome: "ok" | "denied";
  /** why it was denied, or why an allowed connection failed upstream */
  readonly reason?: string;
  /** bytes from the server to the host, and back */
  readonly bytesUp: number;
  readonly bytesDown: number;
  readonly durationMs: number;
  /** "connect" (HTTPS_PROXY tunnel or TCP forward) or "http" (a plain HTTP request through HTTP_PROXY) */
  readonly via: "connect" | "http";
}

/** What the audit log writes for it (SPEC 4.7): the record plus `method: "egress"`. */
export function auditLine(session: string, r: EgressRecord): Record<string, unknown> {
  return { time: r.time, session, server: r.server, method: "egress", host: r.host, port: r.port, outcome: r.outcome,
    ...(r.reason ? { reason: r.reason } : {}), bytesUp: r.bytesUp, bytesDown: r.bytesDown, duration: r.durationMs, via: r.via };
}

const MAX_TEXT = 300;
// printable ASCII only: hosts are ASCII by the time they are checked; anything else is not ours
const clean = (s: string) => s.replace(/[^\x20-\x7e]/g, "?").slice(0, MAX_TEXT);
const count = (n: unknown) => (typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined);

/** A proxy stdout line as a record, or undefined when it is not one (a log line, garbage). */
export function parseRecord(line: string): EgressRecord | undefined {
  if (line.length > 4096 || !line.startsWith("{")) return undefined;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== "object" || v.type !== "egress") return undefined;
  const port = count(v.port), up = count(v.bytesUp), down = count(v.bytesDown), ms = count(v.durationMs);
  if (typeof v.server !== "string" || typeof v.host !== "string" || typeof v.time !== "string") return undefined;
  if (port === undefined || up === undefined || down === undefined || ms === undefined) return undefined;
  if (v.outcome !== "ok" && v.outcome !== "denied") return undefined;
  return {
    time: clean(v.time),
    server: clean(v.server),
    host: clean(v.host),
    port,
    outcome: v.outcome,
    ...(typeof v.reason === "string" ? { reason: clean(v.reason) } : {}),
    bytesUp: up,
    bytesDown: down,
    durationMs: ms,
    via: v.via === "http" ? "http" : "connect",
  };
}

/** The line the proxy prints (parseRecord's inverse). */
export function formatRecord(r: EgressRecord): string {
  return JSON.stringify({ type: "egress", ...r });
}
