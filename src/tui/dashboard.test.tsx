import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "ink-testing-library";
import type { GatewayMessage } from "../monitor/protocol.ts";
import { MonitorStore, type ServerRow } from "../monitor/store.ts";
import { Dashboard } from "./dashboard.tsx";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const limits = { memoryBytes: 512 << 20, cpus: 1, pids: 64 };
const hello = (session: string): GatewayMessage => ({
  v: 1, type: "hello", gateway: { session, pid: 4242, configFile: "/home/dev/proj/sandbox.config.ts", startedAt: NOW - 300_000, version: "t" },
});
const server = (name: string, state: "running" | "restarting" = "running", restarts = 0): GatewayMessage => ({
  v: 1, type: "server", at: NOW, server: name, state, containerId: `c-${name}-${restarts}`, restarts, startedAt: NOW - 65_000, limits,
});
const stats = (name: string, cpuPercent: number, memoryBytes: number): GatewayMessage => ({
  v: 1, type: "stats", at: NOW, server: name, cpuPercent, memoryBytes, memoryLimitBytes: limits.memoryBytes, pids: 11, oomKilled: false,
});

/** A store with two servers of one gateway, some calls, a guard decision and stderr lines. */
function populated() {
  const store = new MonitorStore();
  store.apply("a1b2c3", hello("a1b2c3"));
  store.apply("a1b2c3", server("everything"));
  store.apply("a1b2c3", server("memory"));
  store.apply("a1b2c3", stats("everything", 2.5, 48 << 20));
  store.apply("a1b2c3", stats("memory", 0.3, 300 << 20));
  for (let i = 0; i < 12; i++) {
    const outcome = i === 5 ? "error" : "ok";
    store.apply("a1b2c3", { v: 1, type: "call", at: NOW - 1000 + i, server: i % 3 ? "everything" : "memory", method: "tools/call", tool: i % 3 ? "echo" : "read_graph", durationMs: 1 + i, outcome, bytes: 20 });
  }
  store.apply("a1b2c3", { v: 1, type: "guard", at: NOW - 10, server: "everything", tool: "everything__rm", decision: "denied", reason: "tools.deny" });
  store.apply("a1b2c3", { v: 1, type: "stderr", at: NOW, server: "everything", line: "Starting default (STDIO) server..." });
  return store;
}

/** Renders at exactly 80x24 (ink-testing-library's terminal is 100 columns wide and has no height). */
function renderAt80x24(store: MonitorStore, restarted: ServerRow[] = []) {
  const tree = () => <Dashboard store={store} restart={(r) => void restarted.push(r)} now={() => NOW} tickMs={60_000} />;
  const r = render(tree());
  Object.defineProperty(r.stdout, "columns", { value: 80 });
  Object.defineProperty(r.stdout, "rows", { value: 24 });
  r.rerender(tree());
  return r;
}

const masked = (frame: string | undefined) => (frame ?? "").replace(/\d\d:\d\d:\d\d/g, "HH:MM:SS");
const tick = () => new Promise((r) => setTimeout(r, 20));

afterEach(() => cleanup());

describe("Dashboard", () => {
  it("shows servers, calls and stderr within 80x24", async () => {
    const r = renderAt80x24(populated());
    await tick();
    const frame = masked(r.lastFrame());
    const lines = frame.split("\n");
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    expect(frame).toMatchSnapshot();
  });

  it("moves the selection, restarts the selected server and filters", async () => {
    const store = populated();
    const restarted: ServerRow[] = [];
    const r = renderAt80x24(store, restarted);
    await tick();
    r.stdin.write("j");
    await tick();
    expect(r.lastFrame()).toMatch(/› memory/);
    r.stdin.write("r");
    await tick();
    expect(restarted.map((x) => x.server)).toEqual(["memory"]);
    r.stdin.write("/");
    await tick();
    r.stdin.write("ever");
    await tick();
    expect(r.lastFrame()).toMatch(/filter: ever/);
    r.stdin.write("\r");
    await tick();
    expect(r.lastFrame()).not.toMatch(/ memory +running/);
    expect(r.lastFrame()).toMatch(/› everything/);
  });

  it("marks a gateway that went away and shows a restart", async () => {
    const store = populated();
    const r = renderAt80x24(store);
    store.apply("a1b2c3", server("memory", "running", 1));
    store.gone("a1b2c3");
    await tick();
    const frame = r.lastFrame() ?? "";
    expect(frame).toMatch(/gateway a1b2c3 · pid 4242 · gone/);
    expect(frame).toMatch(/memory +gone +- +1 /);
    expect(frame).not.toMatch(/r restart/); // nothing to restart on a gateway that is gone
  });

  it("scrolls a long server list to keep the selection on screen, within 80x24", async () => {
    const store = new MonitorStore();
    store.apply("a1b2c3", hello("a1b2c3"));
    for (let i = 0; i < 15; i++) store.apply("a1b2c3", server(`srv${String(i).padStart(2, "0")}`));
    const r = renderAt80x24(store);
    for (let i = 0; i < 14; i++) r.stdin.write("j");
    await tick();
    const lines = (r.lastFrame() ?? "").split("\n");
    expect(lines.length).toBeLessThanOrEqual(23);
    expect(lines.some((l) => l.startsWith("› srv14 "))).toBe(true);
    expect(lines.some((l) => l.includes(" srv00 "))).toBe(false);
    expect(lines.at(-1)).toMatch(/q quit/);
  });

  it("says so when it is waiting for gateways", async () => {
    const r = renderAt80x24(new MonitorStore());
    await tick();
    expect(r.lastFrame()).toMatch(/0 gateways · 0 servers/);
  });

  it("shows what a server sent without its escape sequences", async () => {
    const nasty = "\x1b]0;pwned\x07\x1b[2J\x1b[?1049l\u009b31m\x1bP1$r\x1b\\";
    const store = new MonitorStore();
    store.apply("a1b2c3", hello("a1b2c3"));
    store.apply("a1b2c3", { ...server("evil"), containerId: `c1${nasty}` } as GatewayMessage);
    store.apply("a1b2c3", { v: 1, type: "call", at: NOW, server: "evil", method: "tools/call", tool: `evil__x${nasty}`, durationMs: 1, outcome: "ok", bytes: 1 });
    store.apply("a1b2c3", { v: 1, type: "guard", at: NOW, server: "evil", tool: "evil__y", decision: "denied", reason: `why${nasty}\rFAKE` });
    store.apply("a1b2c3", { v: 1, type: "stderr", at: NOW, server: "evil", line: `${nasty}stderr-marker\rFAKE` });
    const r = renderAt80x24(store);
    await tick();
    const frame = r.lastFrame() ?? "";
    expect(frame).toContain("stderr-marker");
    expect(frame).toContain("evil__x");
    // eslint-disable-next-line no-control-regex
    expect(frame).not.toMatch(/\x1b[\]P_^X]|\x1b\[(2J|\?1049)|[\x07\x0d\u0080-\u009f]/);
  });

  it("shows a server's egress count and the last denied hosts, without escape sequences, within 80x24", async () => {
    const nasty = "\x1b]0;pwned\x07\x1b[2J\u009b31m";
    const store = populated();
    const egress = { v: 1, type: "egress", server: "everything", port: 443, bytesUp: 1, bytesDown: 1, durationMs: 1 } as const;
    store.apply("a1b2c3", { ...egress, at: NOW - 5, host: "api.allowed.test", outcome: "ok" });
    store.apply("a1b2c3", { ...egress, at: NOW - 4, host: "evil.test", outcome: "denied", reason: "not in network.allow" });
    store.apply("a1b2c3", { ...egress, at: NOW - 3, host: `x${nasty}.test`, outcome: "denied", reason: `why${nasty}\rFAKE` });
    const r = renderAt80x24(store);
    await tick();
    const frame = r.lastFrame() ?? "";
    const lines = frame.split("\n");
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    expect(frame).toMatch(/everything · c-everything · egress 3 \(2 denied\)/);
    expect(frame).toMatch(/everything +egress evil\.test:443 +denied: not in network\.allow/);
    expect(frame).not.toMatch(/api\.allowed\.test/); // allowed connections are counted, not listed
    // eslint-disable-next-line no-control-regex
    expect(frame).not.toMatch(/\x1b[\]P_^X]|\x1b\[(2J|\?1049)|[\x07\x0d\u0080-\u009f]/);
  });
});
