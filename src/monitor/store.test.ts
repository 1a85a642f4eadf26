import { describe, expect, it } from "vitest";
import type { GatewayInfo } from "./events.ts";
import type { GatewayMessage } from "./protocol.ts";
import { MonitorStore, selectedRow, visibleRows } from "./store.ts";

const info: GatewayInfo = { session: "g1", pid: 1, configFile: "/c.ts", startedAt: 0, version: "t" };
const limits = { memoryBytes: 256 << 20, cpus: 1, pids: 64 };
const server = (name: string, over: Partial<Extract<GatewayMessage, { type: "server" }>> = {}): GatewayMessage => ({
  v: 1, type: "server", at: 1, server: name, state: "running", containerId: `c-${name}`, restarts: 0, startedAt: 1, limits, ...over,
});
const call = (name: string, durationMs: number, outcome: "ok" | "error" = "ok"): GatewayMessage => ({
  v: 1, type: "call", at: durationMs, server: name, method: "tools/call", tool: "t", durationMs, outcome, bytes: 1,
});
const stats = (name: string, cpuPercent: number, oomKilled = false): GatewayMessage => ({
  v: 1, type: "stats", at: 2, server: name, cpuPercent, memoryBytes: 10 << 20, memoryLimitBytes: 256 << 20, pids: 5, oomKilled,
});

function live() {
  const store = new MonitorStore();
  let changes = 0;
  store.subscribe(() => changes++);
  store.apply("g1", { v: 1, type: "hello", gateway: info });
  store.apply("g1", server("b"));
  store.apply("g1", server("a"));
  return { store, changes: () => changes };
}

describe("MonitorStore", () => {
  it("lists servers by name and selects the first", () => {
    const { store } = live();
    const state = store.getState();
    expect(state.gateways[0]).toMatchObject({ session: "g1", status: "live", info });
    expect(visibleRows(state).map((r) => r.server)).toEqual(["a", "b"]);
    expect(selectedRow(state)?.server).toBe("a");
  });

  it("computes call counts, errors and p50/p95 per server", () => {
    const { store } = live();
    for (let i = 1; i <= 100; i++) store.apply("g1", call("a", i, i % 10 === 0 ? "error" : "ok"));
    const a = visibleRows(store.getState())[0]!;
    expect(a).toMatchObject({ calls: 100, errors: 10, p50: 50, p95: 95 });
    expect(store.getState().calls).toHaveLength(100);
  });

  it("emits only when something changed, once per burst of messages", async () => {
    const { store, changes } = live();
    await Promise.resolve();
    const before = changes();
    store.apply("g1", stats("a", 12.51));
    store.apply("g1", call("a", 3));
    await Promise.resolve();
    expect(changes()).toBe(before + 1);
    store.apply("g1", stats("a", 12.52)); // same at the precision shown
    await Promise.resolve();
    expect(changes()).toBe(before + 1);
    const state = store.getState();
    store.moveSelection(-1); // already at the top
    expect(store.getState()).toBe(state);
    expect(changes()).toBe(before + 1);
  });

  it("counts restarts and OOM kills once per container", () => {
    const { store } = live();
    store.apply("g1", stats("a", 1, true));
    store.apply("g1", stats("a", 2, true));
    store.apply("g1", server("a", { containerId: "c-a2", restarts: 1, state: "running" }));
    const a = visibleRows(store.getState())[0]!;
    expect(a).toMatchObject({ oomKills: 1, restarts: 1, containerId: "c-a2", cpuPercent: undefined });
  });

  it("counts an OOM kill the gateway reports as the reason of a restart, once", () => {
    const { store } = live();
    const oom = server("b", { state: "restarting", containerId: "c-b", error: "it ran out of memory (limit 64m)" });
    store.apply("g1", oom);
    store.apply("g1", oom);
    store.apply("g1", stats("b", 0, true)); // the same container seen by the stats poller
    expect(visibleRows(store.getState())[1]).toMatchObject({ server: "b", oomKills: 1, error: "it ran out of memory (limit 64m)" });
  });

  it("moves the selection and filters rows", () => {
    const { store } = live();
    store.moveSelection(1);
    expect(selectedRow(store.getState())?.server).toBe("b");
    store.moveSelection(5);
    expect(selectedRow(store.getState())?.server).toBe("b");
    store.startFilter();
    store.typeFilter("a");
    expect(visibleRows(store.getState()).map((r) => r.server)).toEqual(["a"]);
    expect(selectedRow(store.getState())?.server).toBe("a"); // the selection follows the filter
    store.endFilter(false);
    expect(store.getState()).toMatchObject({ filter: "", editingFilter: false });
  });

  it("takes a late snapshot with counts and recent stderr, and marks a gateway that went away", () => {
    const store = new MonitorStore();
    store.apply("g2", { v: 1, type: "hello", gateway: { ...info, session: "g2" } });
    store.apply("g2", {
      v: 1, type: "snapshot", at: 3, guards: [],
      servers: [{ server: "x", state: "running", restarts: 2, limits, calls: 7, errors: 1, stats: { at: 2, cpuPercent: 3, memoryBytes: 1, memoryLimitBytes: 2, pids: 1, oomKilled: false } }],
      calls: [{ type: "call", at: 1, server: "x", method: "tools/call", durationMs: 4, outcome: "ok", bytes: 1 }],
      stderr: { x: ["booted"] },
    });
    expect(visibleRows(store.getState())[0]).toMatchObject({ server: "x", calls: 7, errors: 1, restarts: 2, cpuPercent: 3, p50: 4 });
    expect(store.getState().stderr).toEqual({ "g2/x": ["booted"] });
    store.gone("g2");
    expect(store.getState().gateways[0]?.status).toBe("gone");
    expect(visibleRows(store.getState())[0]?.state).toBe("gone");
    store.remove("g2");
    expect(store.getState()).toMatchObject({ gateways: [], selected: undefined });
  });

  it("counts egress per server from live events and a late snapshot, and keeps the last denied hosts", () => {
    const store = new MonitorStore();
    store.apply("g3", { v: 1, type: "hello", gateway: { ...info, session: "g3" } });
    store.apply("g3", {
      v: 1, type: "snapshot", at: 3, guards: [], calls: [], stderr: {},
      servers: [{ server: "x", state: "running", restarts: 0, limits, egress: 5, egressDenied: 1 }],
      denied: [{ type: "egress", at: 1, server: "x", host: "old.test", port: 443, outcome: "denied", bytesUp: 0, bytesDown: 0, durationMs: 0 }],
    });
    const egress = { v: 1, type: "egress", server: "x", port: 443, bytesUp: 10, bytesDown: 20, durationMs: 5 } as const;
    store.apply("g3", { ...egress, at: 4, host: "ok.test", outcome: "ok" });
    store.apply("g3", { ...egress, at: 5, host: "new.test", outcome: "denied", reason: "not in network.allow" });
    expect(store.getState().gateways[0]?.servers[0]).toMatchObject({ server: "x", egress: 7, egressDenied: 2 });
    expect(store.getState().denied.map((d) => [d.session, d.host])).toEqual([["g3", "old.test"], ["g3", "new.test"]]);
  });
});
