/**
 * The fast lane's test harness: an in-memory client channel, session and upstreams around a FastLane
 * (src/gateway/fast-lane.test.ts, test/security/deadlines-fuzz.test.ts).
 */
import type { ResolvedServer } from "../config/resolve.ts";
import type { AuditRecord } from "./audit.ts";
import { buildCatalog } from "./catalog.ts";
import { CAPS, TokenBucket } from "./limits.ts";
import { GatewayEvents } from "../monitor/events.ts";
import { FastLane } from "./fast-lane.ts";
import type { Gateway } from "./gateway.ts";
import type { RawChannel } from "./raw-channel.ts";
import { redactor } from "./redact.ts";
import { RoundTrips } from "./round-trips.ts";
import type { ClientSession } from "./session.ts";
import type { Upstream } from "./upstream.ts";

export function server(name: string, extra: Partial<ResolvedServer> = {}): ResolvedServer {
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

export const tools = ["echo", "read", "delete", "secret-tool"].map((name) => ({ name, inputSchema: { type: "object" as const } }));

export interface FakeUpstream {
  name: string;
  server: ResolvedServer;
  running: boolean;
  sent: Record<string, unknown>[];
  notifications: TokenBucket;
  sendRaw(line: string): boolean;
}

export function upstream(s: ResolvedServer): FakeUpstream {
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

export function setup() {
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
export function fakeSession(raw: RawChannel): ClientSession {
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
