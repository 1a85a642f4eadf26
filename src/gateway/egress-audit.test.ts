import { describe, expect, it } from "vitest";
import type { EgressRecord } from "../egress/record.ts";
import { EGRESS_AUDIT, egressAuditor } from "./egress-audit.ts";

const rec = (server: string, outcome: "ok" | "denied", bytes = 0): EgressRecord => ({
  time: "t", server, host: "h", port: 80, outcome, bytesUp: bytes, bytesDown: 2 * bytes, durationMs: 0, via: "http",
});

function harness() {
  let now = 1_000_000;
  const timers: Array<() => void> = [];
  const lines: Record<string, unknown>[] = [];
  const a = egressAuditor("s1", (l) => lines.push(l), { now: () => now, later: (f) => void timers.push(f) });
  return { a, lines, tick: (ms: number) => (now += ms), fire: () => timers.splice(0).forEach((f) => f()) };
}

describe("egressAuditor", () => {
  it("writes a burst one by one, then sums each second's surplus per outcome in one line, losing no count", () => {
    const { a, lines, fire } = harness();
    for (let i = 0; i < EGRESS_AUDIT.burst + 500; i++) a.record(rec("web", i % 2 ? "ok" : "denied", 1), { one: i });
    expect(lines).toHaveLength(EGRESS_AUDIT.burst);
    fire();
    const sums = lines.slice(EGRESS_AUDIT.burst);
    expect(sums.map((l) => [l.outcome, l.count, l.bytesUp, l.bytesDown, l.method, l.server, l.session])).toEqual([
      ["denied", 250, 250, 500, "egress", "web", "s1"],
      ["ok", 250, 250, 500, "egress", "web", "s1"],
    ]);
    expect(String(sums[0]!.reason)).toContain(`over ${EGRESS_AUDIT.perSecond} lines a second`);
  });

  it("keeps each server to its own rate, refills with time, and flushes what is summed at close", () => {
    const { a, lines, tick } = harness();
    for (let i = 0; i < EGRESS_AUDIT.burst + 3; i++) a.record(rec("loud", "denied"), { loud: i });
    a.record(rec("quiet", "ok"), { quiet: 1 });
    expect(lines.at(-1)).toEqual({ quiet: 1 });
    tick(1000);
    a.record(rec("loud", "denied"), { later: 1 });
    expect(lines.at(-1)).toEqual({ later: 1 }); // 200 tokens came back in a second
    a.flush();
    expect(lines.at(-1)).toMatchObject({ server: "loud", outcome: "denied", count: 3 });
  });
});
