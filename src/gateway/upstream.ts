/**
 * One configured server as the gateway sees it: a launched container, the SDK (v2) Client talking to it, its lists,
 * and its life (start, crash, restart with backoff, stop). Exactly one launch at a time per server.
 *
 * Each server is spoken to in the newest revision it supports (SPEC 4.8): the first start probes with
 * `server/discover` (2026-07-28) and falls back to `initialize` (2025-11-25) when the server does not answer it, errs,
 * or stays silent; the verdict is kept for the server's later starts (no probe again). A server that exits on the
 * probe is started again at once in the 2025-11-25 era.
 *
 * While its first start runs, what the server offered when it last ran the same image (the launcher remembers it:
 * catalog-cache.ts) is shown: clients are answered at once (listed(), offered), a call waits for the start and goes
 * only to a tool the server then really lists; its own lists replace the remembered ones, list_changed when they differ.
 */
import type * as ClientSdk from "@modelcontextprotocol/client";
import type {
  Client,
  ClientCapabilities,
  Implementation,
  McpSubscription,
  Notification,
  PriorDiscovery,
  ProtocolEra,
  Request,
  RequestOptions,
  Result,
  ServerCapabilities,
} from "@modelcontextprotocol/client";
// the protocol's constants, the same in both SDK packages: the client package loads with a server's first start
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { ResolvedServer } from "../config/resolve.ts";
import { aggregateCacheHint, type CacheHint } from "./cache-hints.ts";
import { VERSION } from "../version.ts";
import type { ServerState } from "../monitor/events.ts";
import { failureText } from "./failures.ts";
import type { ExitInfo, Launcher, LaunchedServer } from "./launcher.ts";
import { CAPS, TokenBucket } from "./limits.ts";
import type { RememberedServer } from "./catalog-cache.ts";
import { EMPTY_LISTS, listAll, type ServerLists } from "./lists.ts";
import { isRawChannel } from "./raw-channel.ts";
import { relayed, RpcError } from "./rpc-error.ts";
import { deferResponses, exitWhileStarting, upstreamCapabilities, withTimeout, type KnownCapabilities } from "./upstream-io.ts";

export interface UpstreamHooks {
  /** the real client's capabilities (known once it has sent initialize) */
  clientCapabilities(): Promise<KnownCapabilities>;
  /** a request from the server to the client (sampling, elicitation, roots) */
  onRequest(up: Upstream, request: Request, signal: AbortSignal): Promise<Result>;
  onNotification(up: Upstream, notification: Notification): void;
  /** after a (re)start whose lists differ from the previous ones */
  onListsChanged(up: Upstream): void;
  /** state changes, for events and stderr */
  onState(up: Upstream, error?: string): void;
  onStderr(up: Upstream, line: string): void;
  /** called after every successful (re)start, before lists are announced: re-apply log level, subscriptions */
  onReady(up: Upstream, client: Client): Promise<void>;
  /** a parsed message from the server before the SDK sees it; true takes it (answers to sendRaw) */
  onRawMessage(up: Upstream, message: unknown): boolean;
  /** the server's connection closed: whatever was sent with sendRaw gets no answer now */
  onDisconnect(up: Upstream, error: RpcError): void;
}

/**
 * The SDK's client side (its own copy of the protocol's schemas, built as it loads), imported by the first start: a
 * client answered from the catalog cache needs none of it (issue 15: start cost). Its errors are recognised once it
 * is there; before, no error can come from it.
 */
let clientSdk: typeof ClientSdk | undefined;
const loadClientSdk = async (): Promise<typeof ClientSdk> => (clientSdk ??= await import("@modelcontextprotocol/client"));

/**
 * What a start shown from the catalog cache waits for before its own work (the launch side's loading, the engine's
 * requests, the container): the client's first answers, which that work would otherwise hold up on one thread
 * (issue 15). `release` when something needs the server itself (a request to it).
 */
export interface StartHold {
  wait(): Promise<void>;
  release(): void;
}

const BACKOFF_MS = [1000, 2000, 4000, 8000, 16000, 30000];
const STABLE_MS = 60_000;
/** A server that failed to start is tried again on use (a list, a call), at most this often: not a build per tools/list. */
const RETRY_ON_USE_MS = 10_000;
/** How long the first start waits for an answer to `server/discover` before it takes the server for a 2025-11-25 one. */
const PROBE_MS = 5000;
/** A server whose lists keep changing has them kept for the next gateway at most this often (each is a file write). */
const REMEMBER_RELIST_MS = 30_000;

/** Results as the server sent them (the gateway passes them on; the clients' SDKs validate what they use). */
const ANY_RESULT = {
  "~standard": {
    version: 1,
    vendor: "mcpbox",
    validate: (value: unknown) => (typeof value === "object" && value !== null ? { value } : { issues: [{ message: "a result is a JSON object" }] }),
  },
} as const;

export class Upstream {
  readonly server: ResolvedServer;
  state: ServerState = "idle";
  restarts = 0;
  lists: ServerLists = EMPTY_LISTS;
  capabilities: ServerCapabilities | undefined;
  containerId: string | undefined;
  instructions: string | undefined;
  /** the server's own name and version (its initialize answer) */
  serverInfo: Implementation | undefined;
  /** how long its lists may be cached (2026-07-28 servers say; a 2025-11-25 server says nothing) */
  cacheHint: CacheHint | undefined;
  startedAt: number | undefined;
  lastError: string | undefined;
  /** the era this server is spoken to in (known after its first start): "modern" is 2026-07-28 */
  era: ProtocolEra | undefined;
  readonly subscriptions = new Set<string>();
  /** the server's budget of notifications to the client (limits.ts) */
  readonly notifications = new TokenBucket(CAPS.notificationsPerSecond, CAPS.notificationBurst);

  readonly #launcher: Launcher;
  readonly #hooks: UpstreamHooks;
  #client: Client | undefined;
  #launched: LaunchedServer | undefined;
  #starting: Promise<Client> | undefined;
  #restartTimer: NodeJS.Timeout | undefined;
  #failures = 0;
  #stopped = false;
  #lastExit: ExitInfo | undefined;
  #retryInMs: number | undefined;
  #failedAt = 0;
  /** the era verdict of the first start, for the later ones (no probe again) */
  #prior: PriorDiscovery | undefined;
  /** what this gateway's Client tells the server it can do (what the policy allows) */
  #declared: ClientCapabilities = {};
  #revision = "2026-07-28";
  /** a 2026-07-28 server's open subscriptions/listen stream */
  #listening: McpSubscription | undefined;
  #listenQueue: Promise<void> = Promise.resolve();
  /** the launcher's look-up of what the server offered when it last ran (first start only): true once shown */
  #remembered: Promise<boolean> | undefined;
  /** what is shown comes from that look-up, not (yet) from the server */
  #showsRemembered = false;
  #toolNames: { lists: ServerLists; names: Set<string> } | undefined;
  /** when a relist last had the launcher keep the lists (at most one write per REMEMBER_RELIST_MS) */
  #rememberedAt = 0;
  /** why this server can never start in this gateway (a secret that is not set): it is not tried */
  readonly #unavailable: string | undefined;
  /** rejects when stop() is called: a start waiting on a build, the client's initialize or the server gives up at once */
  readonly #halt: Promise<never>;
  #haltNow!: (e: Error) => void;
  readonly #hold: StartHold | undefined;

  constructor(server: ResolvedServer, launcher: Launcher, hooks: UpstreamHooks, unavailable?: string, hold?: StartHold) {
    this.server = server;
    this.#launcher = launcher;
    this.#hooks = hooks;
    this.#unavailable = unavailable;
    this.#hold = hold;
    if (unavailable !== undefined) {
      this.state = "failed";
      this.lastError = unavailable;
    }
    this.#halt = new Promise<never>((_, reject) => (this.#haltNow = reject));
    this.#halt.catch(() => {});
  }

  get name(): string {
    return this.server.name;
  }

  /** The delay of the restart scheduled now, if one is. */
  get retryInMs(): number | undefined {
    return this.#retryInMs;
  }

  /** True when this server cannot start in this gateway (its failure is told, it is never tried). */
  get unavailable(): boolean {
    return this.#unavailable !== undefined;
  }

  /** The connected client, starting the server if it is idle (lazy) or waiting while it starts. */
  ensureStarted(): Promise<Client> {
    if (this.#client && this.state === "running") return Promise.resolve(this.#client);
    if (this.#unavailable !== undefined) return Promise.reject(this.#downError(this.#unavailable));
    if (this.#starting) return this.#starting;
    if (this.#stopped) return Promise.reject(this.#downError("the gateway is stopping"));
    const retry = this.state === "failed" && this.server.restart !== "never" && Date.now() - this.#failedAt >= RETRY_ON_USE_MS;
    if (this.state === "idle" || retry) return this.start();
    return Promise.reject(this.#downError(this.lastError ?? this.state));
  }

  /**
   * What a client's initialize and lists wait for: the server's start (ensureStarted), or less when the lists of its
   * last run are shown meanwhile.
   */
  listed(): Promise<unknown> {
    const started = this.ensureStarted();
    const remembered = this.#remembered;
    if (!remembered || this.state === "running") return started;
    started.catch(() => {}); // whoever waits on the start itself is told its failure
    return Promise.race([started, remembered.then((shown) => (shown ? undefined : started))]);
  }

  /** The capabilities to advertise: the server's once running, those of its last run while they are shown. */
  get offered(): ServerCapabilities | undefined {
    return this.state === "running" || this.#showsRemembered ? this.capabilities : undefined;
  }

  start(): Promise<Client> {
    if (this.#unavailable !== undefined) {
      this.#setState("failed", this.#unavailable);
      return Promise.reject(this.#downError(this.#unavailable));
    }
    this.#starting ??= this.#start().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  /** Sends a request to the server; in-flight requests fail at once if its container dies. */
  async request(request: Request, options: RequestOptions = {}): Promise<Result> {
    const waited = this.state !== "running";
    if (waited) this.#hold?.release();
    const client = await this.ensureStarted();
    if (waited) this.#stillOffered(request);
    try {
      // an input_required answer (2026-07-28) comes back as it is: the gateway passes it on or asks its client itself
      return (await client.request(request as never, ANY_RESULT as never, { ...options, allowInputRequired: true })) as Result;
    } catch (e) {
      const closed = isClosed(e) || client.transport === undefined;
      if (closed && !options.signal?.aborted) {
        throw this.#downError(this.#exitText());
      }
      throw fromSdk(e); // the server's words, without the prefix the gateway's SDK Client put before them
    }
  }

  /**
   * The 2026-07-28 `_meta` envelope of one request to this server: the revision, mcpbox, and what the client it is
   * for can do as far as the policy lets the server ask (`caps`; undefined: what the policy allows); undefined for a
   * 2025-11-25 server.
   */
  modernMeta(caps: KnownCapabilities | undefined, logLevel?: string | undefined): Record<string, unknown> | undefined {
    if (this.era !== "modern") return undefined;
    return {
      [PROTOCOL_VERSION_META_KEY]: this.#revision,
      [CLIENT_INFO_META_KEY]: { name: "mcpbox", version: VERSION },
      [CLIENT_CAPABILITIES_META_KEY]: caps === undefined ? this.#declared : upstreamCapabilities(caps, this.server.clientRequests),
      ...(logLevel === undefined ? {} : { [LOG_LEVEL_META_KEY]: logLevel }),
    };
  }

  /**
   * Writes one serialised message to the running server, beside the SDK Client (the gateway's fast lane). False when
   * the server is not running or its transport cannot take raw lines; the caller then takes the SDK path.
   */
  sendRaw(line: string): boolean {
    const t = this.state === "running" && this.#client ? this.#launched?.transport : undefined;
    return isRawChannel(t) && t.sendLine(line);
  }

  /**
   * A call routed by lists shown before the server was up (its last run's, or a lazy server's cached ones) goes only
   * to a tool or prompt the server itself now lists: one it no longer has is refused, never sent on.
   */
  #stillOffered(request: Request): void {
    const kind = request.method === "tools/call" ? "tools" : request.method === "prompts/get" ? "prompts" : undefined;
    const name = (request.params as { name?: unknown } | undefined)?.name;
    if (!kind || typeof name !== "string" || (kind === "tools" ? this.offersTool(name) : this.lists.prompts.some((item) => item.name === name))) return;
    throw new RpcError(
      ProtocolErrorCode.InvalidParams,
      `server ${this.name} no longer offers the ${kind === "tools" ? "tool" : "prompt"} ${name}: the list shown while it started was from its last run (list again for what it offers now)`,
    );
  }

  /** Whether the lists shown now (the server's own once it runs) have this tool (its own name): one Set look-up. */
  offersTool(name: string): boolean {
    if (this.#toolNames?.lists !== this.lists) this.#toolNames = { lists: this.lists, names: new Set(this.lists.tools.map((t) => t.name)) };
    return this.#toolNames.names.has(name);
  }

  /** Shows what the server offered when it last ran this image, unless its own answers came first. */
  async #showRemembered(): Promise<boolean> {
    const entry = await this.#launcher.remembered?.(this.server).catch(() => undefined);
    if (!entry || this.#stopped || this.state !== "starting" || this.lists !== EMPTY_LISTS) return false;
    this.lists = entry.lists;
    this.capabilities = entry.capabilities;
    this.instructions = entry.instructions;
    this.serverInfo = entry.serverInfo;
    // the era of the last run: what clients send meanwhile is built for it, and the start skips the probe when it
    // has not sent it yet (the image and config are the same: so is the server)
    this.era = entry.era.kind;
    if (entry.era.kind === "modern") this.#revision = entry.era.revision;
    this.#prior ??= entry.era.kind === "modern" ? { kind: "modern", discover: entry.era.discover } : { kind: "legacy" };
    this.#showsRemembered = true;
    this.#hooks.onListsChanged(this); // the catalog takes them (no client has listed before: nothing is told)
    return true;
  }

  /** A first start that failed: the tools of the last run are not shown for a server that is not there (list_changed). */
  #forgetRemembered(): void {
    this.#showsRemembered = false;
    this.era = undefined;
    this.#prior = undefined; // probed afresh on the next start
    this.lists = EMPTY_LISTS;
    this.capabilities = undefined;
    this.instructions = undefined;
    this.serverInfo = undefined;
    this.#hooks.onListsChanged(this);
  }

  /** Keeps what the running server offers for the next gateway (when the launcher can), unless it is what was shown. */
  #remember(launched: LaunchedServer | undefined, shown?: ServerLists): void {
    const prior = this.#prior;
    if (!launched || !this.#launcher.remember || !this.capabilities || !prior) return;
    if (shown && JSON.stringify(shown) === JSON.stringify(this.lists)) return;
    this.#rememberedAt = Date.now();
    const entry: RememberedServer = {
      lists: this.lists,
      capabilities: this.capabilities,
      ...(this.instructions === undefined ? {} : { instructions: this.instructions }),
      ...(this.serverInfo === undefined ? {} : { serverInfo: this.serverInfo }),
      era: prior.kind === "modern" ? { kind: "modern", discover: prior.discover, revision: this.#revision } : { kind: "legacy" },
    };
    void this.#launcher.remember(this.server, launched, entry).catch(() => {});
  }

  async #start(again = false): Promise<Client> {
    if (!again) this.#setState("starting");
    // the first start only, beside the launch (it costs the launch nothing): later ones know the server's own lists
    if (!this.#remembered && this.#launcher.remembered && this.lists === EMPTY_LISTS) this.#remembered = this.#showRemembered();
    const { startupMs } = this.server.timeouts;
    let launched: LaunchedServer | undefined;
    try {
      // shown from the cache: the client's first answers before this start's own work (not given up on a stop:
      // nothing is made yet)
      const hold = this.#hold;
      if (hold && this.#remembered && !again) await this.#unlessStopped(this.#remembered.then((shown) => (shown ? hold.wait() : undefined)));
      await this.#unlessStopped(Promise.resolve(this.#launcher.prepare?.(this.server)));
      // not given up on a stop: a container being made is waited for (it takes a moment), so it is removed below
      launched = await withTimeout(this.#launcher.launch(this.server), startupMs, `${this.name} did not start within ${startupMs} ms`, (late) => void late.stop(1000).catch(() => {}));
      if (this.#stopped) throw new Error("the gateway is stopping");
      this.#launched = launched;
      this.containerId = launched.id;
      launched.onStderr((line) => this.#hooks.onStderr(this, line));
      const watched = launched;
      void watched.exited.then(
        (info) => this.#onExit(watched, info),
        () => this.#onExit(watched, { exitCode: -1, oomKilled: false }),
      );
      const client = await this.#unlessStopped(this.#connect(launched, startupMs));
      this.era = client.getProtocolEra() ?? "legacy";
      this.#revision = client.getNegotiatedProtocolVersion() ?? this.#revision;
      const discover = client.getDiscoverResult();
      this.#prior ??= this.era === "modern" && discover ? { kind: "modern", discover } : { kind: "legacy" };
      this.capabilities = client.getServerCapabilities();
      this.instructions = client.getInstructions();
      this.serverInfo = client.getServerVersion();
      const previous = this.lists;
      const shown = this.#showsRemembered ? previous : undefined;
      this.#client = client;
      await this.#unlessStopped(this.#hooks.onReady(this, client));
      const hints: (CacheHint | undefined)[] = [];
      this.lists = await this.#unlessStopped(listAll(client, this.capabilities, startupMs, this.name, hints));
      this.cacheHint = hints.length > 0 ? aggregateCacheHint(hints) : undefined;
      this.startedAt = Date.now();
      this.lastError = undefined;
      this.#showsRemembered = false; // what is shown is the server's own now
      this.#setState("running");
      if (JSON.stringify(previous) !== JSON.stringify(this.lists)) this.#hooks.onListsChanged(this);
      this.#remember(launched, shown);
      return client;
    } catch (e) {
      const closed = isClosed(e);
      // the SDK says so of a connection that closed during its server/discover probe
      const sdk = clientSdk;
      const probeClosed = this.#prior === undefined && sdk !== undefined && e instanceof sdk.SdkError && e.code === sdk.SdkErrorCode.EraNegotiationFailed && /closed/.test(e.message);
      const why = ((closed || probeClosed) && launched && (await exitWhileStarting(launched, this.server.limits.memory))) || failureText(e);
      this.#client = undefined;
      if (launched) {
        if (this.#launched === launched) this.#launched = undefined; // its exit is this failure, not a crash to report
        await launched.stop(1000).catch(() => {});
      }
      if (probeClosed && launched && !this.#stopped) {
        // a server that ends its connection on an unknown first request (server/discover) is a 2025-11-25 one
        this.#prior = { kind: "legacy" };
        return this.#start(true);
      }
      this.lastError = why;
      if (this.#showsRemembered) this.#forgetRemembered();
      if (this.#stopped) this.#setState("stopped");
      else if (this.restarts > 0 && this.server.restart !== "never") this.#scheduleRestart();
      else {
        this.#failedAt = Date.now();
        this.#setState("failed", why);
      }
      throw this.#downError(why);
    }
  }

  async #connect(launched: LaunchedServer, timeout: number): Promise<Client> {
    const [caps, { Client }] = await Promise.all([this.#hooks.clientCapabilities(), loadClientSdk()]);
    this.#declared = upstreamCapabilities(caps, this.server.clientRequests);
    const client = new Client(
      { name: "mcpbox", version: VERSION },
      {
        capabilities: this.#declared as never,
        versionNegotiation: { mode: "auto", probe: { timeoutMs: Math.min(PROBE_MS, Math.max(1, Math.floor(timeout / 2))) } },
        inputRequired: { autoFulfill: false },
      },
    );
    client.fallbackRequestHandler = (request, ctx) => this.#hooks.onRequest(this, request as Request, ctx.mcpReq.signal);
    client.fallbackNotificationHandler = async (n) => this.#hooks.onNotification(this, n as Notification);
    client.onerror = () => {}; // transport hiccups surface as failed requests or an exit
    await client.connect(launched.transport as never, { timeout, ...(this.#prior ? { prior: this.#prior } : {}) });
    deferResponses(launched);
    const t = launched.transport;
    if (isRawChannel(t)) t.intercept = (m) => this.#hooks.onRawMessage(this, m);
    const onclose = t.onclose;
    t.onclose = () => {
      onclose?.call(t);
      this.#hooks.onDisconnect(this, this.#downError(this.#exitText()));
    };
    return client;
  }

  #onExit(launched: LaunchedServer, info: ExitInfo): void {
    if (launched !== this.#launched) return;
    this.#launched = undefined;
    this.#lastExit = info;
    const client = this.#client;
    this.#client = undefined;
    void client?.close().catch(() => {}); // fails every in-flight request now
    if (this.#stopped) return;
    const lived = this.startedAt === undefined ? 0 : Date.now() - this.startedAt;
    if (lived > STABLE_MS) this.#failures = 0;
    this.lastError = this.#exitText();
    if (this.state === "starting") return; // #start reports the failure
    if (this.server.restart === "never") this.#setState("failed", this.lastError);
    else this.#scheduleRestart();
  }

  /** One state change: "restarting", with the error and the delay (retryInMs) known to whoever reports it. */
  #scheduleRestart(): void {
    if (this.#stopped || this.server.restart === "never") return;
    if (!this.#restartTimer) {
      const delay = BACKOFF_MS[Math.min(this.#failures++, BACKOFF_MS.length - 1)]!;
      this.#retryInMs = delay;
      this.#restartTimer = setTimeout(() => {
        this.#restartTimer = undefined;
        this.#retryInMs = undefined;
        this.restarts++;
        this.start().catch(() => {});
      }, delay);
      this.#restartTimer.unref();
    }
    this.#setState("restarting", this.lastError);
  }

  /** A notification to the server if it is running (dropped otherwise: a new start asks afresh). */
  notify(notification: Notification): void {
    if (this.state === "running") void this.#client?.notification(notification as never).catch(() => {});
  }

  /**
   * (Re)opens a 2026-07-28 server's subscriptions/listen stream for what the gateway wants to hear of it: its list
   * changes and the resources subscribed to (this.subscriptions); the stream before it closes once the new one is
   * acknowledged. Nothing for a 2025-11-25 server (resources/subscribe, unsolicited list_changed).
   */
  listen(): Promise<void> {
    const run = this.#listenQueue.then(() => this.#relisten()); // one at a time: each closes the one before it
    this.#listenQueue = run.catch(() => {});
    return run;
  }

  async #relisten(): Promise<void> {
    const client = this.#client;
    if (!client || this.era !== "modern") return;
    const caps = this.capabilities;
    const filter = {
      ...(caps?.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps?.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps?.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(caps?.resources?.subscribe && this.subscriptions.size > 0 ? { resourceSubscriptions: [...this.subscriptions] } : {}),
    };
    const before = this.#listening;
    this.#listening = Object.keys(filter).length === 0 ? undefined : await client.listen(filter, { timeout: this.server.timeouts.startupMs });
    void before?.close().catch(() => {});
  }

  /** Lists again (after a list_changed); true when something changed. */
  async relist(): Promise<boolean> {
    const client = this.#client;
    if (!client || this.state !== "running") return false;
    const hints: (CacheHint | undefined)[] = [];
    const next = await listAll(client, this.capabilities, this.server.timeouts.startupMs, this.name, hints);
    this.cacheHint = hints.length > 0 ? aggregateCacheHint(hints) : undefined;
    const changed = JSON.stringify(next) !== JSON.stringify(this.lists);
    this.lists = next;
    if (changed && Date.now() - this.#rememberedAt >= REMEMBER_RELIST_MS) this.#remember(this.#launched);
    return changed;
  }

  /** Stops the current container (if any) and starts a new one now. */
  async restart(): Promise<void> {
    if (this.#stopped) return;
    if (this.#unavailable !== undefined) return void (await this.start());
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    this.#retryInMs = undefined;
    const launched = this.#launched;
    this.#launched = undefined;
    const client = this.#client;
    this.#client = undefined;
    void client?.close().catch(() => {});
    await launched?.stop(2000).catch(() => {});
    this.restarts++;
    await this.start();
  }

  /** Stops the container now, even mid-start (a start in flight sees #stopped and removes what it launched). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#haltNow(new Error("the gateway is stopping"));
    clearTimeout(this.#restartTimer);
    this.#retryInMs = undefined;
    const client = this.#client;
    this.#client = undefined;
    const launched = this.#launched;
    this.#launched = undefined;
    await Promise.allSettled([client?.close(), launched?.stop(3000)]);
    await this.#starting?.catch(() => {});
    if (this.state !== "stopped") this.#setState("stopped"); // a start given up on says so itself
  }

  /** `p`, unless the gateway stops first (then the start fails at once; what `p` brings later is dropped). */
  #unlessStopped<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.#halt]);
  }

  #setState(state: ServerState, error?: string): void {
    this.state = state;
    this.#hooks.onState(this, error);
  }

  #exitText(): string {
    const e = this.#lastExit;
    if (!e) return "its connection closed";
    return e.oomKilled ? `it ran out of memory (limit ${this.server.limits.memory})` : `it exited with code ${e.exitCode}`;
  }

  #downError(why: string): RpcError {
    if (this.#unavailable !== undefined) return new RpcError(INTERNAL_ERROR, `server ${this.name} is not available: ${why}`);
    const next =
      this.server.restart === "never" ? "restart: never, it stays down" : this.state === "failed" ? "it is tried again when used" : "it is being restarted";
    return new RpcError(INTERNAL_ERROR, `server ${this.name} is not available: ${why} (${next})`);
  }
}

/** Whether an SDK error says the server's connection closed. */
function isClosed(e: unknown): boolean {
  const sdk = clientSdk;
  return sdk !== undefined && e instanceof sdk.SdkError && e.code === sdk.SdkErrorCode.ConnectionClosed;
}

/** JSON-RPC error codes the gateway answers with (-32001: the request timed out, as the SDKs and MCP clients know it). */
const INTERNAL_ERROR = ProtocolErrorCode.InternalError;
const REQUEST_TIMEOUT = -32001;

/** An error of the v2 Client as the gateway passes errors on: the server's code, words and data; a timeout as -32001. */
export function fromSdk(e: unknown): unknown {
  const sdk = clientSdk;
  if (sdk !== undefined && e instanceof sdk.ProtocolError) return new RpcError(e.code, e.message, e.data);
  if (sdk !== undefined && e instanceof sdk.SdkError && e.code === sdk.SdkErrorCode.RequestTimeout) return new RpcError(REQUEST_TIMEOUT, e.message, e.data);
  return relayed(e);
}
