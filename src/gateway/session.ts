/**
 * One client's connection to the gateway (SPEC 4.9: several at once, sharing the servers). The session holds what
 * belongs to that client only: its SDK Server and transport, its capabilities, log level, subscriptions and calls in
 * flight. The gateway (gateway.ts) holds what all share: the servers, the catalog, name claims, failures, audit.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities, Implementation, LoggingLevel, Notification } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../version.ts";
import { ALL_CAPABILITIES } from "./capabilities.ts";
import { isRawChannel, type RawChannel } from "./raw-channel.ts";
import type { Upstream } from "./upstream.ts";

/** Log levels from the most to the least verbose (RFC 5424 order, as MCP has them). */
const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

export const levelRank = (level: unknown): number => LEVELS.indexOf(level as LoggingLevel);

let nextId = 0;

export class ClientSession {
  readonly id = ++nextId;
  readonly server: Server;
  readonly transport: Transport;
  /** the client's channel when it takes raw lines (stdio): tools/call then takes the one path's raw route */
  readonly raw: RawChannel | undefined;
  initialized = false;
  capabilities: ClientCapabilities | undefined;
  clientInfo: Implementation | undefined;
  /** the level this client asked for (logging/setLevel); undefined: whatever the servers send */
  logLevel: LoggingLevel | undefined;
  /** server → upstream URIs this client subscribed to */
  readonly subscriptions = new Map<Upstream, Set<string>>();
  /** server → this client's calls in flight to it (a server's request to a client goes to one that waits on it) */
  readonly inflight = new Map<Upstream, number>();
  /** resolves once the client's connection is closed (by either side) */
  readonly closed: Promise<void>;
  #closedNow!: () => void;
  #isClosed = false;
  readonly #onClose: (s: ClientSession) => void;

  constructor(transport: Transport, onClose: (s: ClientSession) => void, serverInfo: Implementation = { name: "mcpbox", version: VERSION }) {
    this.transport = transport;
    this.raw = isRawChannel(transport) ? transport : undefined;
    this.#onClose = onClose;
    this.closed = new Promise((resolve) => (this.#closedNow = resolve));
    this.server = new Server(serverInfo, { capabilities: ALL_CAPABILITIES });
    this.server.onerror = () => {}; // bad input is answered by the transport; nothing here is fatal
    this.server.onclose = () => this.#ended();
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** Whether a log message of `level` reaches this client. */
  wantsLevel(level: unknown): boolean {
    if (this.logLevel === undefined) return true;
    const rank = levelRank(level);
    return rank === -1 || rank >= levelRank(this.logLevel);
  }

  /** A notification to this client (dropped while it does not read, or once it is gone). */
  notify(n: Notification): void {
    if (this.#isClosed || !this.initialized) return;
    if (this.raw) this.raw.sendLine(JSON.stringify({ jsonrpc: "2.0", method: n.method, ...(n.params ? { params: n.params } : {}) }), true);
    else void this.server.notification(n as never).catch(() => {});
  }

  callStarted(up: Upstream): void {
    this.inflight.set(up, (this.inflight.get(up) ?? 0) + 1);
  }

  callEnded(up: Upstream): void {
    const n = (this.inflight.get(up) ?? 1) - 1;
    if (n <= 0) this.inflight.delete(up);
    else this.inflight.set(up, n);
  }

  /** Closes this client's connection: its calls in flight are cancelled; the servers keep running for the others. */
  async close(): Promise<void> {
    await this.server.close().catch(() => {});
    this.#ended();
  }

  #ended(): void {
    if (this.#isClosed) return;
    this.#isClosed = true;
    this.#onClose(this);
    this.#closedNow();
  }
}
