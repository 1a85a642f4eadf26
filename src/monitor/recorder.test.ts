import { describe, expect, it } from "vitest";
import { RECENT_CALLS, RECENT_DENIED, RECENT_STDERR, Recorder } from "./recorder.ts";

const limits = { memoryBytes: 64 << 20, cpus: 1, pids: 64 };

describe("Recorder", () => {
  it("keeps memory bounded whatever the gateway emits", () => {
    const r = new Recorder();
    r.record({ type: "server", at: 1, server: "a", state: "running", containerId: "c1", restarts: 0, limits });
    for (let i = 0; i < 10_000; i++) {
      r.record({ type: "call", at: i, server: "a", method: "tools/call", durationMs: 1, outcome: i % 2 ? "ok" : "error", bytes: 1 });
      r.record({ type: "stderr", at: i, server: "a", line: "x".repeat(10_000) });
    }
    const s = r.snapshot();
    expect(s.calls).toHaveLength(RECENT_CALLS);
    expect(s.stderr.a).toHaveLength(RECENT_STDERR);
    expect(s.stderr.a![0]!.length).toBeLessThan(2100);
    expect(s.servers[0]).toMatchObject({ calls: 10_000, errors: 5_000 });
  });

  it("counts OOM kills once per container, and a new container starts without the old one's figures", () => {
    const r = new Recorder();
    r.record({ type: "server", at: 1, server: "a", state: "running", containerId: "c1", restarts: 0, limits });
    r.record({ type: "stats", at: 2, server: "a", cpuPercent: 5, memoryBytes: 60 << 20, memoryLimitBytes: 64 << 20, pids: 3, oomKilled: true });
    r.record({ type: "server", at: 3, server: "a", state: "restarting", containerId: "c1", restarts: 0, limits, error: "it ran out of memory (limit 64m)" });
    r.record({ type: "server", at: 4, server: "a", state: "running", containerId: "c2", restarts: 1, limits });
    const [a] = r.snapshot().servers;
    expect(a).toMatchObject({ oomKills: 1, restarts: 1, containerId: "c2", stats: undefined });
    expect(r.runningContainers()).toEqual([{ server: "a", containerId: "c2" }]);
  });

  it("counts egress connections per server and keeps the last denied ones, bounded", () => {
    const r = new Recorder();
    r.record({ type: "server", at: 1, server: "a", state: "running", containerId: "c1", restarts: 0, limits });
    const egress = (i: number, outcome: "ok" | "denied") =>
      ({ type: "egress", at: i, server: "a", host: `h${i}.test`, port: 443, outcome, bytesUp: 1, bytesDown: 2, durationMs: 3 }) as const;
    for (let i = 0; i < 100; i++) r.record(egress(i, i % 4 ? "ok" : "denied"));
    const s = r.snapshot();
    expect(s.servers[0]).toMatchObject({ egress: 100, egressDenied: 25 });
    expect(s.denied).toHaveLength(RECENT_DENIED);
    expect(s.denied!.at(-1)).toMatchObject({ host: "h96.test", outcome: "denied" });
  });
});
