/**
 * Boundary 4 (a server that never answers): the fast lane's per-call deadlines, now one timer per timeouts.callMs (fast-lane.ts
 * Deadlines), still end each call at its own start + callMs whatever came and went before it. The harness is
 * src/gateway/fast-lane.test.ts's (fake timers: no timed assertion).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ResolvedServer } from "../../src/config/resolve.ts";
import type { AuditRecord } from "../../src/gateway/audit.ts";
import { buildCatalog } from "../../src/gateway/catalog.ts";
import { CAPS, TokenBucket } from "../../src/gateway/limits.ts";
import { GatewayEvents } from "../../src/monitor/events.ts";
import { FastLane } from "../../src/gateway/fast-lane.ts";
import type { Gateway } from "../../src/gateway/gateway.ts";
import type { RawChannel } from "../../src/gateway/raw-channel.ts";
import { redactor } from "../../src/gateway/redact.ts";
import { RoundTrips } from "../../src/gateway/round-trips.ts";
import type { ClientSession } from "../../src/gateway/session.ts";
import type { Upstream } from "../../src/gateway/upstream.ts";

function server(name: string, extra: Partial<ResolvedServer> = {}): ResolvedServer {
  return {
    name,
    prefix: name,
    source: { kind: "image", image: "x" },
    mounts: [{ source: "/home/u/docs", target: "/docs", readOnly: true }],
    pathArguments: [],
    tools: { allow: undefined, deny: ["secret-tool"] },
    approve: ["delete"],
    timeouts: { startupMs: 1000, callMs: 500, runMs: 1000 },
    ...extra,
  } as ResolvedServer;
}

const tools = ["echo", "read", "delete", "secret-tool"].map((name) => ({ name, inputSchema: { type: "object" as const } }));

interface FakeUpstream {
  name: string;
  server: ResolvedServer;
  running: boolean;
  sent: Record<string, unknown>[];
  notifications: TokenBucket;
  sendRaw(line: string): boolean;
}

function upstream(s: ResolvedServer): FakeUpstream {
  return {
    name: s.name,
    server: s,
    running: true,
    sent: [],
    notifications: new TokenBucket(CAPS.notificationsPerSecond, CAPS.notificationBurst),
    sendRaw(line) {
      if (this.running) this.sent.push(JSON.parse(line) as Record<string, unknown>);
      return this.running;
    },
  };
}

function setup() {
  const servers = [server("a"), server("b")];
  const ups = new Map(servers.map((s) => [s.name, upstream(s)]));
  const audit: AuditRecord[] = [];
  const gw = {
    transparent: false,
    sessions: new Set<unknown>(),
    roundTrips: new RoundTrips(),
    catalog: buildCatalog(servers.map((s) => ({ server: s, lists: { tools, prompts: [], resources: [], templates: [] } }))),
    upstreams: ups,
    upstream: (name: string) => ups.get(name)!,
    options: {
      session: "s1",
      events: new GatewayEvents(),
      redact: redactor(["hunter22"]),
      audit: { write: (r: AuditRecord) => void audit.push(r), close: async () => {} },
    },
  };
  const written: Record<string, unknown>[] = [];
  const client = { sendLine: (json: string) => (written.push(JSON.parse(json) as Record<string, unknown>), true) } as unknown as RawChannel;
  const session = fakeSession(client);
  gw.sessions.add(session);
  const lane = new FastLane(gw as unknown as Gateway);
  const call = (id: number | string, name: string, args: Record<string, unknown> = {}, meta?: object, from = session) =>
    lane.fromClient(from, { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });
  return { gw, ups, a: ups.get("a")!, b: ups.get("b")!, lane, written, audit, call, session, asUp: (u: FakeUpstream) => u as unknown as Upstream };
}

/** A client session over a raw channel, as far as the lane sees it. */
function fakeSession(raw: RawChannel): ClientSession {
  const inflight = new Map<Upstream, number>();
  return {
    raw,
    era: "legacy",
    initialized: true,
    isClosed: false,
    inflight,
    wantsLevel: () => true,
    notify(n: { method: string; params?: unknown }) {
      raw.sendLine(JSON.stringify({ jsonrpc: "2.0", method: n.method, params: n.params }), true);
    },
    callStarted: (up: Upstream) => void inflight.set(up, (inflight.get(up) ?? 0) + 1),
    callEnded: (up: Upstream) => void inflight.set(up, (inflight.get(up) ?? 1) - 1),
  } as unknown as ClientSession;
}
// hrev (issue 15 review): random arrivals, answers and cancels against the shared-timer deadlines (3a824fb): every call not answered ends
// exactly callMs (500) after its own start, none earlier, none twice, nothing armed at the end
describe("deadlines fuzz", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());
  it("each call times out at its own start + callMs", () => {
    let seed = 12345;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    for (let round = 0; round < 40; round++) {
      const t = setup();
      let now = 0;
      const calls = new Map<number, { start: number; up: "a" | "b"; upId: string; done: boolean; cancelled: boolean }>();
      let next = 1;
      const check = () => {
        for (const w of t.written) {
          const c = calls.get(w.id as number)!;
          if ("error" in w && (w.error as { code: number }).code === -32001) {
            expect(c.done || c.cancelled).toBe(false);
            expect(now).toBe(c.start + 500);
            c.done = true;
          }
        }
        t.written.length = 0;
        for (const c of calls.values()) if (!c.done && !c.cancelled) expect(now).toBeLessThan(c.start + 500);
      };
      for (let step = 0; step < 60; step++) {
        const k = rnd(10);
        if (k < 4) {
          const up = rnd(2) ? "a" : "b";
          const id = next++;
          t.call(id, `${up}__echo`);
          calls.set(id, { start: now, up, upId: t.ups.get(up)!.sent.at(-1)!.id as string, done: false, cancelled: false });
        } else if (k < 6) {
          const open = [...calls.entries()].filter(([, c]) => !c.done && !c.cancelled);
          if (open.length) {
            const [id, c] = open[rnd(open.length)]!;
            t.lane.fromServer(t.asUp(t.ups.get(c.up)!), { jsonrpc: "2.0", id: c.upId, result: {} });
            expect(t.written.at(-1)!.id).toBe(id);
            t.written.pop();
            c.done = true;
          }
        } else if (k < 7) {
          const open = [...calls.entries()].filter(([, c]) => !c.done && !c.cancelled);
          if (open.length) {
            const [id, c] = open[rnd(open.length)]!;
            t.lane.fromClient(t.session, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
            c.cancelled = true;
          }
        } else {
          const dt = [0, 1, 7, 99, 250, 499, 500, 501][rnd(8)]!;
          for (let i = 0; i < dt; i++) {
            vi.advanceTimersByTime(1);
            now++;
            check();
          }
        }
      }
      for (let i = 0; i < 600; i++) {
        vi.advanceTimersByTime(1);
        now++;
        check();
      }
      for (const c of calls.values()) expect(c.done || c.cancelled).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    }
  });
});
