import { describe, expect, it } from "vitest";
import { MonitorStore } from "../monitor/store.ts";
import { plainSummary } from "./summary.ts";

const limits = { memoryBytes: 64 << 20, cpus: 1, pids: 64 };

describe("plainSummary", () => {
  it("gives an allowlisted server's egress count and the last denied hosts, printable", () => {
    const store = new MonitorStore();
    store.apply("g1", { v: 1, type: "hello", gateway: { session: "g1", pid: 1, configFile: "/p/sandbox.config.ts", startedAt: 0, version: "t" } });
    store.apply("g1", { v: 1, type: "server", at: 1, server: "web", state: "running", restarts: 0, limits });
    const egress = { v: 1, type: "egress", server: "web", port: 443, bytesUp: 1, bytesDown: 1, durationMs: 1 } as const;
    store.apply("g1", { ...egress, at: 2, host: "good.test", outcome: "ok" });
    store.apply("g1", { ...egress, at: 3, host: "evil\x1b[2J.test", outcome: "denied", reason: "not on the allowlist" });
    const text = plainSummary(store.getState(), 10);
    expect(text).toContain("web: egress 2 (1 denied)");
    expect(text).toMatch(/recent denied egress:\n {2}web evil.*\.test:443 \(not on the allowlist\)/);
    expect(text).not.toContain("\x1b");
  });
});
