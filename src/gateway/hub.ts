/**
 * What the request paths (handlers.ts, calls.ts, tool-call.ts, forward.ts, input-required.ts, fast-lane.ts) need of
 * the gateway, as types: they depend on this leaf, gateway.ts implements Hub and wires them, so each pair of the six
 * imports one way (ARCHITECTURE.md "Known crossings"). Types only.
 */
import type { ClientCapabilities, LoggingLevel, Notification, ProtocolError, Result } from "@modelcontextprotocol/server";
import type { ResolvedServer } from "../config/resolve.ts";
import type { GatewayEvents } from "../monitor/events.ts";
import type { AuditSink } from "./audit.ts";
import type { Catalog } from "./catalog.ts";
import type { PendingRequests } from "./client-requests.ts";
import type { FailureReports } from "./failures.ts";
import type { Launcher } from "./launcher.ts";
import type { ListCache } from "./list-cache.ts";
import type { Redact } from "./redact.ts";
import type { RoundTrips } from "./round-trips.ts";
import type { ClientSession } from "./session.ts";
import type { Upstream } from "./upstream.ts";

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

/**
 * A change every client hears of, for entries whose clients listen without a session of their own (the SDK's HTTP
 * `subscriptions/listen` streams): lists that changed, or a resource updated (its URI as clients know it).
 */
export type GatewayChange = { kind: "lists"; tools: boolean; prompts: boolean; resources: boolean } | { kind: "resource"; uri: string; params: Record<string, unknown> };

/** What a handler knows of the client's request, whichever SDK and era it came through. */
export interface Extra {
  signal: AbortSignal;
  sendNotification(n: Notification): Promise<void>;
  /** a 2026-07-28 request: what its envelope and retry fields say */
  modern?: ModernRequest | undefined;
  /**
   * the call belongs to a modern round trip (round-trips.ts), not to the client request that started it: a
   * per-request session (HTTP) ends with its answer, the call goes on until `signal` says otherwise
   */
  detached?: boolean | undefined;
}

export interface ModernRequest {
  logLevel?: LoggingLevel | undefined;
  capabilities?: ClientCapabilities | undefined;
  inputResponses?: Record<string, unknown> | undefined;
  requestState?: string | undefined;
}

export interface CallInfo {
  method: string;
  tool?: string | undefined;
  args?: unknown;
}

/** The one route of tools/call over raw channels (fast-lane.ts), as the other paths use it. */
export interface CallLane {
  call(session: ClientSession, up: Upstream, params: Record<string, unknown>, extra: Extra, info: CallInfo): Promise<Result> | undefined;
  fromServer(up: Upstream, m: unknown): boolean;
  serverDown(up: Upstream, error: ProtocolError): void;
}

/** The gateway as the request paths see it (gateway.ts Gateway). */
export interface Hub {
  readonly options: GatewayOptions;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  /** one server without prefix: a transparent proxy */
  readonly transparent: boolean;
  readonly catalog: Catalog;
  readonly fastLane: CallLane;
  readonly failures: FailureReports;
  readonly sessions: ReadonlySet<ClientSession>;
  readonly pendingRequests: PendingRequests<Upstream>;
  readonly roundTrips: RoundTrips;
  readonly taskOwners: Map<string, ClientSession>;
  readonly changeListeners: ReadonlySet<(change: GatewayChange) => void>;
  ready(): Promise<Catalog>;
  upstream(name: string): Upstream;
  sessionFor(up: Upstream): ClientSession | undefined;
  upstreamLogLevel(): LoggingLevel | undefined;
  rebuildCatalog(): { tools: boolean; prompts: boolean; resources: boolean };
}
