/**
 * One client's connection to the gateway (SPEC 4.9: several at once, sharing the servers). The session holds what
 * belongs to that client only: its SDK server and transport, its protocol era, capabilities, log level, subscriptions
 * and calls in flight. The gateway (gateway.ts) holds what all share: the servers, the catalog, name claims, failures,
 * audit.
 *
 * The era (SPEC 4.8) is the client's first message's: `initialize` (or anything without the 2026-07-28 `_meta`
 * envelope) is a 2025-11-25 client, served by an SDK v2 Server connected to the client's transport (the 2025-11-25
 * handshake binds it to that era); `server/discover` or an enveloped request is a 2026-07-28 client, served by an SDK
 * v2 Server through v2's own connection entry (`serveStdio`), which answers discovery, lifts each request's envelope
 * and streams `subscriptions/listen`. One SDK, both eras; tools/call over stdio takes the one raw route (fast-lane.ts).
 */
import { Server, type ClientCapabilities, type Implementation, type JSONRPCMessage, type LoggingLevel, type Notification, type Transport } from "@modelcontextprotocol/server";
import { serveStdio, type StdioServerHandle } from "@modelcontextprotocol/server/stdio";
import { VERSION } from "../version.ts";
import { ALL_CAPABILITIES } from "./capabilities.ts";
import { PendingRequests } from "./client-requests.ts";
import { isRawChannel, type RawChannel } from "./raw-channel.ts";
import { ErrorCode } from "./rpc-error.ts";
import type { Upstream } from "./upstream.ts";

/** Log levels from the most to the least verbose (RFC 5424 order, as MCP has them). */
const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

export const levelRank = (level: unknown): number => LEVELS.indexOf(level as LoggingLevel);

export type Era = "legacy" | "modern";

export const MODERN_REVISION = "2026-07-28";
const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";

/** The era a client's first message opens (see the top of this file). */
export function openingEra(message: unknown): Era {
  const m = message as { method?: unknown; params?: { _meta?: Record<string, unknown> } } | null;
  if (m?.method === "server/discover") return "modern";
  const claimed = m?.params?._meta?.[PROTOCOL_VERSION_KEY];
  return typeof claimed === "string" && claimed >= MODERN_REVISION ? "modern" : "legacy";
}

/** How the gateway builds a session's server of either era (gateway.ts). */
export interface SessionSetup {
  legacy(session: ClientSession): Server;
  modern(session: ClientSession): Promise<Server>;
  /**
   * keeps `uris` (as clients know them) subscribed at their servers for `session` until the returned release;
   * undefined when none of them routes to a server (nothing is held)
   */
  hold(session: ClientSession, uris: readonly string[]): (() => void) | undefined;
}

/** The resource URIs a `subscriptions/listen` request asks updates of (at most 1000), as HTTP reads them (src/http). */
export function listenedResources(message: unknown): string[] {
  const m = message as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | null;
  const uris = m?.method === "subscriptions/listen" ? m.params?.notifications?.resourceSubscriptions : undefined;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === "string").slice(0, 1000) : [];
}

/** At most this many listen streams that hold resources are open at once on one stdio connection (the next is refused). */
export const MAX_HELD_LISTENS = 16;

/**
 * What a holder session passes on to the client it holds for: the updates of the resources it holds. List changes
 * reach that client's listen stream through its own session (listsChanged), log messages never (a 2026-07-28 client
 * has no unsolicited log: it asks per request).
 */
const HELD_PASSES: ReadonlySet<string> = new Set(["notifications/resources/updated"]);

let nextId = 0;

export class ClientSession {
  readonly id = ++nextId;
  readonly transport: Transport | undefined;
  /** the client's channel when it takes raw lines (stdio): tools/call then takes the one path's raw route */
  readonly raw: RawChannel | undefined;
  era: Era | undefined;
  /** the SDK server of this client, by era (the same SDK class, bound to the client's era) */
  legacy: Server | undefined;
  modern: Server | undefined;
  initialized = false;
  capabilities: ClientCapabilities | undefined;
  clientInfo: Implementation | undefined;
  /** the level this client asked for (logging/setLevel); undefined: whatever the servers send */
  logLevel: LoggingLevel | undefined;
  /** server → upstream URIs this client subscribed to */
  readonly subscriptions = new Map<Upstream, Set<string>>();
  /**
   * server → this client's calls in flight to it and when the first of them started. An entry, once made, stays (at
   * zero calls): a Map that one call at a time emptied and filled again made a new hash table at every call (issue 15).
   */
  readonly #calls = new Map<Upstream, { n: number; since: number }>();
  /** whether this client waits on a call to the server (a server's request to a client goes to one that waits on it) */
  readonly inflight = { has: (up: Upstream): boolean => (this.#calls.get(up)?.n ?? 0) > 0 };
  /** when the first of this client's calls in flight to the server started; undefined: none in flight */
  readonly inflightSince = {
    get: (up: Upstream): number | undefined => {
      const c = this.#calls.get(up);
      return c !== undefined && c.n > 0 ? c.since : undefined;
    },
  };
  /**
   * the servers' requests waiting on the clients, shared by every session of a gateway: a legacy server's requests
   * and a modern server's input_required questions asked of this client count against the same bounds
   */
  readonly pending: PendingRequests<Upstream>;
  /** a session that only holds subscriptions (gateway.ts holdSubscriptions) for this client, which hears their updates */
  heldFor: ClientSession | undefined;
  /** a session that only holds a listen stream's subscriptions (gateway.ts holdSubscriptions): no client of its own */
  holder = false;
  /** one request's session (the SDK's per-request HTTP entry): what it parks outlives it, for the client's retry */
  perRequest = false;
  /** resolves once the client's connection is closed (by either side) */
  readonly closed: Promise<void>;
  #closedNow!: () => void;
  #isClosed = false;
  #stdio: StdioServerHandle | undefined;
  readonly #onClose: (s: ClientSession) => void;

  constructor(transport: Transport | undefined, onClose: (s: ClientSession) => void, pending = new PendingRequests<Upstream>()) {
    this.transport = transport;
    this.pending = pending;
    this.raw = isRawChannel(transport) ? transport : undefined;
    this.#onClose = onClose;
    this.closed = new Promise((resolve) => (this.#closedNow = resolve));
  }

  /** Serves this client over `transport`: the era is chosen at its first message, then that era's server takes over. */
  async serve(setup: SessionSetup): Promise<void> {
    const transport = this.transport!;
    const opening = new OpeningTransport(transport, () => this.#ended());
    opening.onFirst = async (first) => {
      this.era = openingEra(first);
      if (this.era === "legacy") {
        this.legacy = setup.legacy(this);
        this.legacy.onclose = () => this.#ended();
        await this.legacy.connect(opening);
      } else {
        const meta = (first as { params?: { _meta?: Record<string, unknown> } }).params?._meta ?? {};
        const caps = meta[CLIENT_CAPABILITIES_KEY];
        if (caps && typeof caps === "object") this.capabilities = caps as ClientCapabilities;
        const info = meta[CLIENT_INFO_KEY];
        if (info && typeof info === "object") this.clientInfo = info as Implementation;
        // a listen stream that names resources keeps them subscribed at their servers while it is open, as over HTTP:
        // until the client cancels it, the SDK answers it (ended, or refused), or the connection ends
        const held = new Map<unknown, () => void>();
        const letGo = (id: unknown) => {
          held.get(id)?.();
          held.delete(id);
        };
        // a request without the envelope on a 2026-07-28 connection is refused as the HTTP binding does (-32602), and
        // never re-opens the connection in another era; a listen stream past MAX_HELD_LISTENS is refused too
        opening.refuse = (m) => {
          const r = m as { id?: unknown; method?: unknown };
          if (r.id === undefined || typeof r.method !== "string") return false;
          const error =
            openingEra(m) !== "modern"
              ? { code: ErrorCode.InvalidParams, message: `Invalid params: a ${MODERN_REVISION} request names its revision in _meta["${PROTOCOL_VERSION_KEY}"]` }
              : r.method === "subscriptions/listen" && held.size >= MAX_HELD_LISTENS && !held.has(r.id) && listenedResources(m).length > 0
                ? {
                    code: ErrorCode.InvalidRequest,
                    message: `Invalid request: at most ${MAX_HELD_LISTENS} subscriptions/listen streams naming resources may be open at once on one connection; cancel one (notifications/cancelled) or name the resources in one stream`,
                  }
                : undefined;
          if (!error) return false;
          void transport.send({ jsonrpc: "2.0", id: r.id as string | number, error });
          return true;
        };
        opening.observe = (m) => {
          const r = m as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
          if (r.method === "notifications/cancelled") return letGo(r.params?.requestId);
          if (r.method !== "subscriptions/listen" || r.id === undefined) return;
          const uris = listenedResources(m);
          letGo(r.id);
          const release = uris.length > 0 ? setup.hold(this, uris) : undefined;
          if (release) held.set(r.id, release);
        };
        opening.sent = (m) => {
          const r = m as { id?: unknown; result?: unknown; error?: unknown };
          if (r.id !== undefined && (r.result !== undefined || r.error !== undefined)) letGo(r.id);
        };
        void this.closed.then(() => [...held.keys()].forEach(letGo));
        this.#stdio = serveStdio(async () => (this.modern = await setup.modern(this)), { transport: opening as never, legacy: "reject", onerror: () => {} });
      }
    };
    await opening.start();
  }

  /** A modern server for one request over HTTP (the SDK's per-request entry): this session lives as long as it. */
  async serveModern(setup: SessionSetup): Promise<Server> {
    this.era = "modern";
    this.perRequest = true;
    this.modern = await setup.modern(this);
    this.modern.onclose = () => this.#ended();
    return this.modern;
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** Whether a log message of `level` reaches this (legacy) client; a modern one asks per request (round-trips.ts). */
  wantsLevel(level: unknown): boolean {
    if (this.holder || this.era === "modern") return false;
    if (this.logLevel === undefined) return true;
    const rank = levelRank(level);
    return rank === -1 || rank >= levelRank(this.logLevel);
  }

  /** A notification to this client (dropped while it does not read, or once it is gone). */
  notify(n: Notification): void {
    if (this.holder) return void (this.heldFor && HELD_PASSES.has(n.method) && this.heldFor.notify(n));
    if (this.#isClosed || !this.initialized) return;
    if (this.raw) this.raw.sendLine(JSON.stringify({ jsonrpc: "2.0", method: n.method, ...(n.params ? { params: n.params } : {}) }), true);
    else if (this.legacy) void this.legacy.notification(n as never).catch(() => {});
    else void this.modern?.notification(n as never).catch(() => {});
  }

  /** Tells this client which lists changed (a modern client hears it on its subscriptions/listen stream). */
  listsChanged(changed: { tools: boolean; prompts: boolean; resources: boolean }): void {
    if (this.#isClosed || !this.initialized) return;
    const s = this.legacy ?? this.modern;
    if (!s) return;
    if (changed.tools) void s.sendToolListChanged().catch(() => {});
    if (changed.prompts) void s.sendPromptListChanged().catch(() => {});
    if (changed.resources) void s.sendResourceListChanged().catch(() => {});
  }

  /** An error of the gateway's own, as a log message (a legacy client only: a modern one has no unsolicited log). */
  tellError(line: string): void {
    if (this.#isClosed || !this.initialized || !this.legacy) return;
    void this.legacy.sendLoggingMessage({ level: "error", logger: "mcpbox", data: line }).catch(() => {});
  }

  callStarted(up: Upstream): void {
    let c = this.#calls.get(up);
    if (c === undefined) this.#calls.set(up, (c = { n: 0, since: 0 }));
    if (c.n++ === 0) c.since = Date.now();
  }

  callEnded(up: Upstream): void {
    const c = this.#calls.get(up);
    if (c !== undefined && c.n > 0) c.n--;
  }

  /** Closes this client's connection: its calls in flight are cancelled; the servers keep running for the others. */
  async close(): Promise<void> {
    if (this.#stdio) await this.#stdio.close().catch(() => {});
    else if (this.legacy) await this.legacy.close().catch(() => {});
    else if (this.modern) await this.modern.close().catch(() => {});
    else await this.transport?.close().catch(() => {});
    this.#ended();
  }

  #ended(): void {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#onClose(this);
    this.#closedNow();
  }
}

/**
 * The client's transport until its first message is read: that message picks the era (onFirst connects the SDK
 * server of that era to this transport), then it and whatever came meanwhile are delivered in order.
 */
class OpeningTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  onFirst: ((message: JSONRPCMessage) => Promise<void>) | undefined;
  /** a message this connection answers itself (true), never handing it to the SDK */
  refuse: ((message: JSONRPCMessage) => boolean) | undefined;
  /** sees each message handed to the SDK, and each one sent to the client */
  observe: ((message: JSONRPCMessage) => void) | undefined;
  sent: ((message: JSONRPCMessage) => void) | undefined;
  readonly #inner: Transport;
  readonly #gone: () => void;
  #queue: [JSONRPCMessage, unknown][] | undefined = [];
  #started = false;

  constructor(inner: Transport, gone: () => void) {
    this.#inner = inner;
    this.#gone = gone;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  async start(): Promise<void> {
    if (this.#started) return; // the SDK servers start it again when they connect
    this.#started = true;
    this.#inner.onmessage = (m, extra) => {
      if (this.refuse?.(m)) return;
      if (!this.#queue) return void this.#deliver(m as JSONRPCMessage, extra);
      this.#queue.push([m as JSONRPCMessage, extra]);
      if (this.#queue.length === 1) void this.#open(m as JSONRPCMessage);
    };
    this.#inner.onclose = () => {
      this.onclose?.();
      this.#gone();
    };
    this.#inner.onerror = (e) => this.onerror?.(e);
    await this.#inner.start();
  }

  async #open(first: JSONRPCMessage): Promise<void> {
    try {
      await this.onFirst?.(first);
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
    const queued = this.#queue ?? [];
    this.#queue = undefined;
    for (const [m, extra] of queued) if (m === first || !this.refuse?.(m)) this.#deliver(m, extra);
  }

  #deliver(message: JSONRPCMessage, extra: unknown): void {
    this.observe?.(message);
    this.onmessage?.(message, extra as never);
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    this.sent?.(message);
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

export const LEGACY_SERVER_INFO: Implementation = { name: "mcpbox", version: VERSION };

/**
 * A legacy session's SDK server, as every gateway builds it. The SDK's own input_required shim stays off: the gateway
 * itself asks a 2025-11-25 client what a 2026-07-28 server needs (input-required.ts), under its bounds.
 */
export function legacyServer(info: Implementation = LEGACY_SERVER_INFO): Server {
  const s = new Server(info, { capabilities: ALL_CAPABILITIES, inputRequired: { legacyShim: false } });
  s.onerror = () => {}; // bad input is answered by the transport; nothing here is fatal
  return s;
}
