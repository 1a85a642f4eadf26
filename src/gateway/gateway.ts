/**
 * The gateway (SPEC 4): one Upstream (SDK Client + container) per configured server, shared by every client
 * connected (a ClientSession each, session.ts: its own low-level SDK v2 Server, bound to the client's era). This file
 * holds the lifecycle and the shared state; handlers.ts answers a client's requests, calls.ts runs tool calls through
 * the guards, forward.ts carries server-to-client traffic, fast-lane.ts is the raw route of tools/call.
 */
import {
  Server as ModernServer,
  type ClientCapabilities,
  type Implementation,
  type InitializeResult,
  type LoggingLevel,
  type ServerCapabilities,
  type Transport,
} from "@modelcontextprotocol/server";
import { ALL_CAPABILITIES, gatewayInstructions, unionCapabilities } from "./capabilities.ts";
import { buildCatalog, routeResource, type Catalog } from "./catalog.ts";
import { acceptLists, NameClaims } from "./claims.ts";
import { FailureReports } from "./failures.ts";
import { FastLane } from "./fast-lane.ts";
import { forwardingHooks } from "./forward.ts";
import { EMPTY_LISTS, type ServerLists } from "./lists.ts";
import { PendingRequests } from "./client-requests.ts";
import { legacyHost, modernHost, registerHandlers } from "./handlers.ts";
import { ClientSession, LEGACY_SERVER_INFO, legacyServer, levelRank, type SessionSetup } from "./session.ts";
import { RoundTrips } from "./round-trips.ts";
import { Upstream, type StartHold, type UpstreamHooks } from "./upstream.ts";
import type { GatewayChange, GatewayOptions, Hub } from "./hub.ts";

export type { GatewayChange, GatewayOptions } from "./hub.ts";



/** What the servers are told when the client's capabilities come per request (clientRequests still applies). */
const ANY_CLIENT: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

/** At most this long initialize waits for eager servers (within their startupMs), to advertise what they offer. */
const INITIALIZE_WAIT_MS = 25_000; // below the 30 s some clients allow for initialize

/**
 * How long the starts of servers shown from the catalog cache wait for a client's first list (they go at once then,
 * or at a request to the server): at most this long after a client's initialize was answered (one that does not list
 * soon), and at most the second when no client comes. The first call waits for its server anyway, and it should not
 * be the first list that waits (issue 15); on these 2 cores the starts' work on the one thread and the containers'
 * own boot held the client's answers up.
 */
const CLIENT_FIRST_MS = 50;
const CLIENT_FIRST_CAP_MS = 1000;

export class Gateway implements Hub {
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly options: GatewayOptions;
  /** one server without prefix: a transparent proxy */
  readonly transparent: boolean;
  catalog: Catalog;
  /** the one route of tools/call over raw channels (fast-lane.ts), shared by every session */
  readonly fastLane: FastLane;
  /** servers that could not start, told once on stderr and to the clients (failures.ts) */
  readonly failures: FailureReports;
  /** the clients connected now, in the order they came */
  readonly sessions = new Set<ClientSession>();
  /** the servers' requests (and input_required questions) waiting on the clients, per server and per client */
  readonly pendingRequests = new PendingRequests<Upstream>();
  /** 2026-07-28 clients' calls across their retries (round-trips.ts) */
  readonly roundTrips = new RoundTrips();
  /** task handle → the client that made or asked of the task (its status notifications go there, tasks.ts) */
  readonly taskOwners = new Map<string, ClientSession>();
  /** who hears of changes beside the sessions (GatewayChange) */
  readonly changeListeners = new Set<(change: GatewayChange) => void>();
  /** resolves once a first client has said what it can do (the servers start talking to it then) */
  readonly #clientCaps: Promise<ClientCapabilities>;
  readonly #hooks: UpstreamHooks;
  /** who holds which name for this session, and the lists each server is served with (claims.ts) */
  readonly #claims = new NameClaims();
  readonly #accepted = new Map<string, ServerLists>();
  readonly #reported = new Set<string>();
  #resolveClientCaps!: (caps: ClientCapabilities) => void;
  /** the starts shown from the catalog cache wait on this: a client's first list, a request to a server, or a timer */
  readonly #clientFirst: ReturnType<typeof clientFirst>;

  constructor(options: GatewayOptions) {
    this.options = options;
    this.transparent = options.servers.length === 1 && options.servers[0]!.prefix === null;
    this.#clientCaps = new Promise((resolve) => (this.#resolveClientCaps = resolve));
    this.failures = new FailureReports({ stderr: options.log, client: (line) => this.#tellClients(line) });
    // the servers are told all a client may do (within each one's clientRequests) once a first client is there, not
    // that client's own capabilities: with several clients, a later one may do more; a request a client cannot
    // answer is refused to the server with why (forward.ts)
    this.#hooks = forwardingHooks(this, () => this.#clientCaps.then(() => ANY_CLIENT));
    const unavailable = options.unavailable ?? new Map<string, string>();
    this.#clientFirst = clientFirst(CLIENT_FIRST_CAP_MS);
    this.upstreams = new Map(options.servers.map((s) => [s.name, new Upstream(s, options.launcher, this.#hooks, unavailable.get(s.name), this.#clientFirst)]));
    this.catalog = buildCatalog([], this.transparent);
    this.fastLane = new FastLane(this);
  }

  /** True once some client has initialized. */
  get initialized(): boolean {
    for (const s of this.sessions) if (s.initialized) return true;
    return false;
  }

  /**
   * One client's connection (stdio: the one; HTTP: one per client session). Every session shares the servers; what
   * it asks, and what the servers send about its calls, is its own.
   */
  async connect(transport: Transport): Promise<ClientSession> {
    const session = new ClientSession(transport, (s) => this.#ended(s), this.pendingRequests);
    this.sessions.add(session);
    if (session.raw) {
      const raw = session.raw;
      raw.intercept = (m) => this.fastLane.fromClient(session, m);
    }
    await session.serve(this.#setup);
    return session;
  }

  /**
   * A 2026-07-28 server for one client request, for an entry that builds one per request (the SDK's HTTP handler,
   * `createMcpHandler`): a session of its own that ends when that server closes.
   */
  async modernServer(capabilities?: ClientCapabilities): Promise<ModernServer> {
    const session = new ClientSession(undefined, (s) => this.#ended(s), this.pendingRequests);
    // a per-request client says what it can do with each request, after the servers started: they are told all a
    // client may do (within each one's clientRequests), and a request to a client that cannot is answered with why
    this.#resolveClientCaps(capabilities ?? ANY_CLIENT);
    session.capabilities = capabilities;
    this.sessions.add(session);
    return session.serveModern(this.#setup);
  }

  /**
   * A client's `subscriptions/listen` asks for updates of `uris` (as clients know them) without a session of its own
   * (the SDK's HTTP listen streams), or for a stdio client's listen stream (`owner`): a holder session keeps each
   * subscribed at its server as a client's resources/subscribe does, until the returned function lets go (the server
   * is told to unsubscribe when no client wants the URI any more). Undefined, and no holder, when none of `uris`
   * routes to a server: a holder only stands for what it holds (it hears no log, session.ts wantsLevel).
   */
  holdSubscriptions(uris: readonly string[], owner?: ClientSession): (() => void) | undefined {
    const routed: [Upstream, string][] = [];
    for (const exposed of uris) {
      const route = routeResource(this.catalog, exposed);
      const up = route && this.upstreams.get(route.server);
      if (route && up) routed.push([up, route.uri]);
    }
    if (routed.length === 0) return undefined;
    const holder = new ClientSession(undefined, (s) => this.#ended(s), this.pendingRequests);
    holder.holder = true;
    holder.heldFor = owner; // a stdio client's listen stream: the updates go to that client's connection
    this.sessions.add(holder);
    const added = new Map<Upstream, string[]>();
    for (const [up, uri] of routed) {
      let mine = holder.subscriptions.get(up);
      if (!mine) holder.subscriptions.set(up, (mine = new Set()));
      mine.add(uri);
      if (up.subscriptions.has(uri)) continue;
      up.subscriptions.add(uri); // a server that starts later is subscribed when ready (forward.ts onReady)
      added.set(up, [...(added.get(up) ?? []), uri]);
    }
    tellServers(added, "resources/subscribe");
    return () => void holder.close();
  }

  readonly #setup: SessionSetup = {
    legacy: (session) => {
      const server = legacyServer();
      this.#onInitialize(session, server);
      registerHandlers(this, session, legacyHost(server));
      return server;
    },
    hold: (session, uris) => this.holdSubscriptions(uris, session),
    modern: async (session) => {
      // what the servers are told the client can do, when it is the first: its first request's envelope says
      this.#resolveClientCaps(session.capabilities ?? {});
      const { capabilities, instructions, serverInfo } = await this.#advertised();
      const { tasks: _tasks, ...offered } = capabilities; // the tasks extension is bridged for 2025-11-25 clients only
      const server = new ModernServer(serverInfo ?? LEGACY_SERVER_INFO, { capabilities: offered as never, ...(instructions ? { instructions } : {}) });
      server.onerror = () => {};
      registerHandlers(this, session, modernHost(server, session));
      session.initialized = true;
      return server;
    },
  };

  /**
   * What a client is told the gateway offers, at initialize or discovery: the answer waits briefly for the eager
   * servers so it can advertise the union of what they offer. Lazy servers are not waited for (everything is
   * advertised then, since what they offer is unknown). Servers that could not start are named in the instructions,
   * with why. A transparent proxy shows its server's own serverInfo.
   */
  async #advertised(): Promise<{ capabilities: ServerCapabilities; instructions?: string; serverInfo?: Implementation; lazy: boolean }> {
    const ups = [...this.upstreams.values()];
    const lazy = ups.some((u) => u.server.startup === "lazy");
    if (!lazy) {
      const wait = Math.min(INITIALIZE_WAIT_MS, Math.max(...ups.map((u) => u.server.timeouts.startupMs)));
      await settleWithin(ups.map((u) => u.listed()), wait);
    }
    const instructions = gatewayInstructions(
      ups.map((u) => ({ server: u.name, instructions: u.instructions })),
      this.failures.lines(),
    );
    const capabilities = lazy ? structuredClone(ALL_CAPABILITIES) : unionCapabilities(ups.map((u) => u.offered));
    const serverInfo = this.transparent ? ups[0]!.serverInfo : undefined;
    return { capabilities, lazy, ...(instructions ? { instructions } : {}), ...(serverInfo ? { serverInfo } : {}) };
  }

  /** A client went away: its calls are cancelled (the SDK aborts their handlers), its subscriptions let go. */
  #ended(session: ClientSession): void {
    this.sessions.delete(session);
    this.fastLane.sessionClosed(session);
    this.roundTrips.sessionClosed(session);
    for (const [handle, owner] of this.taskOwners) if (owner === session) this.taskOwners.delete(handle);
    const dropped = new Map<Upstream, string[]>();
    for (const [up, uris] of session.subscriptions) {
      for (const uri of uris) {
        if ([...this.sessions].some((s) => s.subscriptions.get(up)?.has(uri))) continue;
        up.subscriptions.delete(uri);
        dropped.set(up, [...(dropped.get(up) ?? []), uri]);
      }
    }
    session.subscriptions.clear();
    tellServers(dropped, "resources/unsubscribe");
  }

  /** A legacy client's initialize: its capabilities go to the servers (the first client's), then what is offered. */
  #onInitialize(session: ClientSession, s: ModernServer): void {
    // the SDK's own answer (it binds the server to the client's revision and keeps its capabilities), then what is offered
    const server = s as unknown as { _oninitialize(r: unknown): Promise<InitializeResult> };
    s.setRequestHandler("initialize", async (request) => {
      const result = await server._oninitialize(request);
      session.capabilities = request.params.capabilities;
      session.clientInfo = request.params.clientInfo;
      this.#resolveClientCaps(session.capabilities);
      const offered = await this.#advertised();
      this.#clientFirst.soon(CLIENT_FIRST_MS); // its tools/list normally follows at once
      const capabilities = offered.lazy ? result.capabilities : offered.capabilities;
      return {
        ...result,
        capabilities,
        ...(offered.serverInfo ? { serverInfo: offered.serverInfo } : {}),
        ...(offered.instructions ? { instructions: offered.instructions } : {}),
      };
    });
    s.oninitialized = () => {
      session.initialized = true;
      for (const line of this.failures.lines()) session.tellError(line); // what failed before the client could be told
    };
    // A client's roots changed: every running server is told and asks again (answered with its translation).
    s.setNotificationHandler("notifications/roots/list_changed", async () => {
      for (const up of this.upstreams.values()) up.notify({ method: "notifications/roots/list_changed" });
    });
  }

  /**
   * The client a server's request (sampling, elicitation, roots) goes to: the one that has waited longest on a call
   * to that server, else the first client connected. Undefined while no client has initialized.
   */
  sessionFor(up: Upstream): ClientSession | undefined {
    const ready = [...this.sessions].filter((s) => s.initialized && !s.isClosed && s.era === "legacy");
    const waiting = ready.filter((s) => s.inflight.has(up)).sort((a, b) => a.inflightSince.get(up)! - b.inflightSince.get(up)!);
    return waiting[0] ?? ready[0];
  }

  /** The level the servers are asked to log at: the most verbose any client asked for (each client filters its own). */
  upstreamLogLevel(): LoggingLevel | undefined {
    let best: LoggingLevel | undefined;
    for (const s of this.sessions) if (s.logLevel && (best === undefined || levelRank(s.logLevel) < levelRank(best))) best = s.logLevel;
    return best;
  }

  /** Starts the eager servers in parallel; failures are reported and retried on use. */
  startEager(): void {
    for (const up of this.upstreams.values()) {
      if (up.server.startup === "eager" || up.unavailable) up.start().catch(() => {}); // unavailable: reports why
      else this.#hooks.onState(up); // lazy: announced as idle until first use
    }
  }

  /** Every eager server started, then the catalog. A lazy server is listed from the cache, or started once to list it. */
  async ready(): Promise<Catalog> {
    const cache = this.options.listCache;
    const waits = [...this.upstreams.values()].map((u) => {
      if (u.server.startup === "lazy" && u.state === "idle" && cache && u.lists === EMPTY_LISTS) {
        const cached = cache.read(u.server);
        if (cached) {
          u.lists = cached;
          this.rebuildCatalog();
          return undefined;
        }
      }
      if (u.server.startup === "lazy" && u.state === "idle" && u.lists !== EMPTY_LISTS) return undefined;
      return u.listed();
    });
    await Promise.allSettled(waits);
    // a client is answered from the catalog: the starts it held back go once the answer is written (this turn)
    setImmediate(() => this.#clientFirst.release());
    return this.catalog;
  }

  rebuildCatalog(): { tools: boolean; prompts: boolean; resources: boolean } {
    const before = this.catalog;
    const proposals = [...this.upstreams.values()].map((u) => ({ server: u.server, lists: u.lists }));
    const { lists, refusals } = acceptLists(proposals, this.#accepted, this.#claims, this.transparent);
    this.catalog = buildCatalog(lists, this.transparent, this.#claims);
    for (const line of this.catalog.collisions) if (!before.collisions.includes(line)) this.options.log(`name clash: ${line}`);
    for (const line of [...refusals, ...this.catalog.refusedTemplates]) this.#reportOnce(line);
    // what changed is only told to initialized clients and change listeners: with none (servers shown from the cache
    // before the client's initialize, one rebuild each) the comparison of every list is not made
    if (!this.initialized && this.changeListeners.size === 0) return { tools: false, prompts: false, resources: false };
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    return {
      tools: !same(before.tools, this.catalog.tools),
      prompts: !same(before.prompts, this.catalog.prompts),
      resources: !same(before.resources, this.catalog.resources) || !same(before.templates, this.catalog.templates),
    };
  }

  /** A refusal is told once per gateway on stderr and to the clients as a log message, not at every relist. */
  #reportOnce(line: string): void {
    if (this.#reported.has(line) || this.#reported.size >= 1000) return;
    this.#reported.add(line);
    this.options.log(line);
    this.#tellClients(line);
  }

  /** An error log message from the gateway itself to every client that has initialized. */
  #tellClients(line: string): void {
    for (const s of this.sessions) s.tellError(line);
  }

  upstream(name: string): Upstream {
    const up = this.upstreams.get(name);
    if (!up) throw new Error(`no server ${name}`);
    return up;
  }

  async restart(name: string): Promise<void> {
    await this.upstream(name).restart();
  }

  /** Stops every server and closes every client connection. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.upstreams.values()].map((u) => u.stop()));
    await Promise.allSettled([...this.sessions].map((s) => s.close()));
    await this.options.launcher.close().catch(() => {});
    await this.options.audit.close();
  }
}

/** A StartHold that lets go on release(), `capMs` after its first wait(), or `ms` after soon(ms), whichever comes first. */
function clientFirst(capMs: number): StartHold & { soon(ms: number): void } {
  let release!: () => void;
  let done = false;
  const released = new Promise<void>((resolve) => (release = () => ((done = true), resolve())));
  const timers: NodeJS.Timeout[] = [];
  const after = (ms: number) => {
    const timer = setTimeout(release, ms);
    timer.unref();
    timers.push(timer);
  };
  let waited = false;
  return {
    wait() {
      if (!done && !waited) after(capMs);
      waited = true;
      return released;
    },
    soon(ms) {
      if (!done) after(ms);
    },
    release() {
      for (const t of timers.splice(0)) clearTimeout(t);
      release();
    },
  };
}

async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([Promise.allSettled(promises), timeout]);
  clearTimeout(timer);
}

/** (Un)subscribe requests a 2025-11-25 server gets at once for one listen request or one client that went away. */
export const SUBSCRIBE_CONCURRENCY = 4;

/**
 * Tells each server which of its URIs the gateway now wants to hear of, or no longer: a 2026-07-28 server reopens
 * its listen stream once (however many URIs changed), a 2025-11-25 one gets one request per URI, at most
 * SUBSCRIBE_CONCURRENCY at a time (a listen request naming 1000 URIs is not 1000 round trips at once).
 */
function tellServers(changed: ReadonlyMap<Upstream, readonly string[]>, method: "resources/subscribe" | "resources/unsubscribe"): void {
  for (const [up, uris] of changed) {
    if (up.era === "modern") {
      void up.listen().catch(() => {});
      continue;
    }
    if (up.state !== "running" || !up.capabilities?.resources?.subscribe) continue;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < uris.length) {
        const uri = uris[next++]!;
        await up.request({ method, params: { uri } }, { timeout: 10_000 }).catch(() => {});
      }
    };
    for (let i = 0; i < Math.min(SUBSCRIBE_CONCURRENCY, uris.length); i++) void worker();
  }
}
