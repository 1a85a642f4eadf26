/**
 * The gateway (SPEC 4): a low-level SDK Server facing the real client, plus one Upstream (SDK Client + container)
 * per configured server. This file holds the lifecycle and the shared state; handlers.ts answers the client's
 * requests, calls.ts runs tool calls through the guards, forward.ts carries server-to-client traffic.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  InitializeRequestSchema,
  RootsListChangedNotificationSchema,
  type ClientCapabilities,
  type InitializeResult,
  type LoggingLevel,
} from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedServer } from "../config/resolve.ts";
import { VERSION } from "../version.ts";
import type { AuditSink } from "./audit.ts";
import { ALL_CAPABILITIES, gatewayInstructions, unionCapabilities } from "./capabilities.ts";
import { buildCatalog, type Catalog } from "./catalog.ts";
import { acceptLists, NameClaims } from "./claims.ts";
import type { GatewayEvents } from "./events.ts";
import { FailureReports } from "./failures.ts";
import { FastLane } from "./fast-lane.ts";
import { forwardingHooks } from "./forward.ts";
import { EMPTY_LISTS, type ServerLists } from "./lists.ts";
import { registerHandlers } from "./handlers.ts";
import type { Launcher } from "./launcher.ts";
import type { ListCache } from "./list-cache.ts";
import { isRawChannel } from "./raw-channel.ts";
import type { Redact } from "./redact.ts";
import { Upstream, type UpstreamHooks } from "./upstream.ts";

export interface GatewayOptions {
  servers: readonly ResolvedServer[];
  launcher: Launcher;
  session: string;
  events: GatewayEvents;
  audit: AuditSink;
  redact: Redact;
  /** human lines (stderr) */
  log: (line: string) => void;
  /** lets lazy servers be listed without starting them */
  listCache?: ListCache;
  /** servers that cannot start in this gateway, and why (a secret not set): they are reported, never tried */
  unavailable?: ReadonlyMap<string, string>;
}

/** At most this long initialize waits for eager servers (within their startupMs), to advertise what they offer. */
const INITIALIZE_WAIT_MS = 25_000; // below the 30 s some clients allow for initialize

export class Gateway {
  readonly server: Server;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly options: GatewayOptions;
  /** one server without prefix: a transparent proxy */
  readonly transparent: boolean;
  catalog: Catalog;
  logLevel: LoggingLevel | undefined;
  fastLane: FastLane | undefined;
  initialized = false;
  /** servers that could not start, told once on stderr and to the client (failures.ts) */
  readonly failures: FailureReports;
  #clientCaps: Promise<ClientCapabilities>;
  readonly #hooks: UpstreamHooks;
  /** who holds which name for this session, and the lists each server is served with (claims.ts) */
  readonly #claims = new NameClaims();
  readonly #accepted = new Map<string, ServerLists>();
  readonly #reported = new Set<string>();
  #resolveClientCaps!: (caps: ClientCapabilities) => void;

  constructor(options: GatewayOptions) {
    this.options = options;
    this.transparent = options.servers.length === 1 && options.servers[0]!.prefix === null;
    this.#clientCaps = new Promise((resolve) => (this.#resolveClientCaps = resolve));
    this.server = new Server({ name: "mcpbox", version: VERSION }, { capabilities: ALL_CAPABILITIES });
    this.server.onerror = () => {}; // bad input is answered by the transport; nothing here is fatal
    this.failures = new FailureReports({ stderr: options.log, client: (line) => this.initialized && this.#tellClient(line) });
    this.#hooks = forwardingHooks(this, () => this.#clientCaps);
    const unavailable = options.unavailable ?? new Map<string, string>();
    this.upstreams = new Map(options.servers.map((s) => [s.name, new Upstream(s, options.launcher, this.#hooks, unavailable.get(s.name))]));
    this.catalog = buildCatalog([], this.transparent);
    this.#onInitialize();
    registerHandlers(this);
  }

  /**
   * Initialize: the client's capabilities are handed to the upstream Clients (they declare the same), then the
   * answer waits briefly for the eager servers so it can advertise the union of what they offer. Lazy servers are
   * not waited for (everything is advertised then, since what they offer is unknown). Servers that could not start
   * are named in the instructions, with why.
   */
  #onInitialize(): void {
    const server = this.server as unknown as { _oninitialize(r: unknown): Promise<InitializeResult> };
    this.server.setRequestHandler(InitializeRequestSchema, async (request) => {
      const result = await server._oninitialize(request);
      this.#resolveClientCaps(request.params.capabilities);
      const ups = [...this.upstreams.values()];
      const lazy = ups.some((u) => u.server.startup === "lazy");
      if (!lazy) {
        const wait = Math.min(INITIALIZE_WAIT_MS, Math.max(...ups.map((u) => u.server.timeouts.startupMs)));
        await settleWithin(ups.map((u) => u.ensureStarted()), wait);
      }
      const instructions = gatewayInstructions(
        ups.map((u) => ({ server: u.name, instructions: u.instructions })),
        this.failures.lines(),
      );
      const capabilities = lazy ? result.capabilities : unionCapabilities(ups.map((u) => (u.state === "running" ? u.capabilities : undefined)));
      return { ...result, capabilities, ...(instructions ? { instructions } : {}) };
    });
    this.server.oninitialized = () => {
      this.initialized = true;
      for (const line of this.failures.lines()) this.#tellClient(line); // what failed before the client could be told
    };
    // The client's roots changed: every running server is told and asks again (answered with its translation).
    this.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
      for (const up of this.upstreams.values()) up.notify({ method: "notifications/roots/list_changed" });
    });
  }

  /** The client's connection; over a raw channel (stdio), tools/call takes the fast lane (fast-lane.ts). */
  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
    if (!isRawChannel(transport)) return;
    const lane = new FastLane(this, transport);
    this.fastLane = lane;
    transport.intercept = (m) => lane.fromClient(m);
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
      return u.ensureStarted();
    });
    await Promise.allSettled(waits);
    return this.catalog;
  }

  rebuildCatalog(): { tools: boolean; prompts: boolean; resources: boolean } {
    const before = this.catalog;
    const proposals = [...this.upstreams.values()].map((u) => ({ server: u.server, lists: u.lists }));
    const { lists, refusals } = acceptLists(proposals, this.#accepted, this.#claims, this.transparent);
    this.catalog = buildCatalog(lists, this.transparent, this.#claims);
    for (const line of this.catalog.collisions) if (!before.collisions.includes(line)) this.options.log(`name clash: ${line}`);
    for (const line of [...refusals, ...this.catalog.refusedTemplates]) this.#reportOnce(line);
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    return {
      tools: !same(before.tools, this.catalog.tools),
      prompts: !same(before.prompts, this.catalog.prompts),
      resources: !same(before.resources, this.catalog.resources) || !same(before.templates, this.catalog.templates),
    };
  }

  /** A refusal is told once per session on stderr and to the client as a log message, not at every relist. */
  #reportOnce(line: string): void {
    if (this.#reported.has(line) || this.#reported.size >= 1000) return;
    this.#reported.add(line);
    this.options.log(line);
    if (this.initialized) this.#tellClient(line);
  }

  /** An error log message from the gateway itself to the client. */
  #tellClient(line: string): void {
    void this.server.sendLoggingMessage({ level: "error", logger: "mcpbox", data: line }).catch(() => {});
  }

  upstream(name: string): Upstream {
    const up = this.upstreams.get(name);
    if (!up) throw new Error(`no server ${name}`);
    return up;
  }

  async restart(name: string): Promise<void> {
    await this.upstream(name).restart();
  }

  /** Stops every server and closes the client connection. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.upstreams.values()].map((u) => u.stop()));
    await this.server.close().catch(() => {});
    await this.options.launcher.close().catch(() => {});
    await this.options.audit.close();
  }
}

async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([Promise.allSettled(promises), timeout]);
  clearTimeout(timer);
}
