/**
 * Egress audit lines within a rate (SECURITY.md boundary 5, the disk of `$MCPBOX_HOME`): how many connections and
 * plain requests a server makes is its own choice, and one pipelined connection holds thousands of requests, each an
 * audit line of about 250 bytes: a server denied in a loop grew the audit log by megabytes a second, unbounded. Per
 * server, lines within 200 a second (a burst of 2000) are written one by one; each second's surplus becomes one line
 * per outcome with its count and bytes, so nothing goes unaccounted. Pure apart from the clock and timer handed in.
 */
import type { EgressRecord } from "../egress/record.ts";
import { TokenBucket } from "./limits.ts";

export const EGRESS_AUDIT = { perSecond: 200, burst: 2000, summaryMs: 1000 } as const;

type Outcome = EgressRecord["outcome"];
interface Surplus {
  count: number;
  bytesUp: number;
  bytesDown: number;
}

export interface EgressAuditor {
  /** the record's own line, or its share of the next summary */
  record(r: EgressRecord, line: Record<string, unknown>): void;
  /** writes what is still summed up (at close) */
  flush(): void;
}

export function egressAuditor(
  session: string,
  write: (line: Record<string, unknown>) => void,
  clock: { now: () => number; later: (f: () => void, ms: number) => void } = { now: Date.now, later: (f, ms) => setTimeout(f, ms).unref() },
): EgressAuditor {
  const servers = new Map<string, { bucket: TokenBucket; surplus: Map<Outcome, Surplus>; due: boolean }>();
  const summarize = (server: string) => {
    const s = servers.get(server);
    if (!s) return;
    s.due = false;
    for (const [outcome, { count, bytesUp, bytesDown }] of s.surplus) {
      const reason = `${count} more ${outcome === "ok" ? "allowed" : "denied"} egress connections not written one by one: over ${EGRESS_AUDIT.perSecond} lines a second`;
      write({ time: new Date(clock.now()).toISOString(), session, server, method: "egress", outcome, count, reason, bytesUp, bytesDown });
    }
    s.surplus.clear();
  };
  return {
    record(r, line) {
      let s = servers.get(r.server);
      if (!s) servers.set(r.server, (s = { bucket: new TokenBucket(EGRESS_AUDIT.perSecond, EGRESS_AUDIT.burst, clock.now), surplus: new Map(), due: false }));
      if (s.bucket.take()) return write(line);
      const sum = s.surplus.get(r.outcome) ?? { count: 0, bytesUp: 0, bytesDown: 0 };
      s.surplus.set(r.outcome, { count: sum.count + 1, bytesUp: sum.bytesUp + r.bytesUp, bytesDown: sum.bytesDown + r.bytesDown });
      if (!s.due) {
        s.due = true;
        clock.later(() => summarize(r.server), EGRESS_AUDIT.summaryMs);
      }
    },
    flush() {
      for (const server of servers.keys()) summarize(server);
    },
  };
}
