/**
 * The gateway (SPEC 4): a low-level SDK Server facing the real client, plus one Upstream (SDK Client + container)
 * per configured server. This file holds the lifecycle and the shared state; handlers.ts answers the client's
 * requests, calls.ts runs tool calls through the guards, forward.ts carries server-to-client traffic.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { InitializeRequestSchema, type ClientCapabilities, type LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedServer } from "../config/resolve.ts";
import { VERSION } from "../version.ts";
import type { AuditSink } from "./audit.ts";
import { buildCatalog, type Catalog } from "./catalog.ts";
import type { GatewayEvents } from "./events.ts";
import { forwardingHooks } from "./forward.ts";
import { registerHandlers } from "./handlers.ts";
import type { Launcher } from "./launcher.ts";
import type { Redact } from "./redact.ts";
import { Upstream } from "./upstream.ts";

export interface GatewayOptions {
  servers: readonly ResolvedServer[];
  launcher: Launcher;
  session: string;
  events: GatewayEvents;
  audit: AuditSink;
  redact: Redact;
  /** human lines (stderr) */
  log: (line: string) => void;
}

/** What the gateway offers; lists may be empty, and list_changed is sent when servers start or change. */
export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  logging: {},
  completions: {},
} as const;

export class Gateway {
  readonly server: Server;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  readonly options: GatewayOptions;
  /** one server without prefix: a transparent proxy */
  readonly transparent: boolean;
  catalog: Catalog;
  logLevel: LoggingLevel | undefined;
  initialized = false;
  #clientCaps: Promise<ClientCapabilities>;
  #resolveClientCaps!: (caps: ClientCapabilities) => void;

  constructor(options: GatewayOptions) {
    this.options = options;
    this.transparent = options.servers.length === 1 && options.servers[0]!.prefix === null;
    this.#clientCaps = new Promise((resolve) => (this.#resolveClientCaps = resolve));
    this.server = new Server({ name: "mcpbox", version: VERSION }, { capabilities: GATEWAY_CAPABILITIES });
    this.server.onerror = () => {}; // bad input is answered by the transport; nothing here is fatal
    const hooks = forwardingHooks(this, () => this.#clientCaps);
    this.upstreams = new Map(options.servers.map((s) => [s.name, new Upstream(s, options.launcher, hooks)]));
    this.catalog = buildCatalog([], this.transparent);
    this.#onInitialize();
    registerHandlers(this);
  }

  /** Remember the client's capabilities as soon as it sends initialize: upstream Clients declare the same. */
  #onInitialize(): void {
    const server = this.server as unknown as { _oninitialize(r: unknown): Promise<unknown> };
    this.server.setRequestHandler(InitializeRequestSchema, async (request) => {
      const result = await server._oninitialize(request);
      this.#resolveClientCaps(request.params.capabilities);
      return result as never;
    });
    this.server.oninitialized = () => {
      this.initialized = true;
    };
  }

  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
  }

  /** Starts the eager servers in parallel; failures are reported and retried on use. */
  startEager(): void {
    for (const up of this.upstreams.values()) {
      if (up.server.startup === "eager") up.start().catch(() => {});
    }
  }

  /** Every server started (lazy ones too: listing is their first use), then the catalog. */
  async ready(): Promise<Catalog> {
    await Promise.allSettled([...this.upstreams.values()].map((u) => u.ensureStarted()));
    return this.catalog;
  }

  rebuildCatalog(): { tools: boolean; prompts: boolean; resources: boolean } {
    const before = this.catalog;
    const inputs = [...this.upstreams.values()].map((u) => ({ server: u.server, lists: u.lists }));
    this.catalog = buildCatalog(inputs, this.transparent);
    for (const line of this.catalog.collisions) if (!before.collisions.includes(line)) this.options.log(`name clash: ${line}`);
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    return {
      tools: !same(before.tools, this.catalog.tools),
      prompts: !same(before.prompts, this.catalog.prompts),
      resources: !same(before.resources, this.catalog.resources) || !same(before.templates, this.catalog.templates),
    };
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
