/**
 * Traffic from the servers to the client (SPEC 4.1): requests (sampling, elicitation, translated roots),
 * notifications (logging with the server's name, resource updates, list changes), states and stderr.
 */
import { specTypeSchemas, type ClientCapabilities, type Notification, type ProtocolError, type Request, type Result } from "@modelcontextprotocol/server";
import type { Client } from "@modelcontextprotocol/client";
import { messageOf } from "../errors.ts";
import { MissingRequiredClientCapabilityError } from "@modelcontextprotocol/server";
import { routeResource } from "./catalog.ts";
import { requestKind, vetClientRequest } from "./client-requests.ts";
import { clientKey, type CallState } from "./round-trips.ts";
import type { Hub as Gateway } from "./hub.ts";
import type { ClientSession } from "./session.ts";
import { CAPS, capMessage, TokenBucket } from "./limits.ts";
import { translateRoots } from "./roots.ts";
import { ErrorCode, relayed, RpcError } from "./rpc-error.ts";
import { levelRank } from "./session.ts";
import { withTaskHandles } from "./tasks.ts";
import type { Upstream, UpstreamHooks } from "./upstream.ts";

export function forwardingHooks(gw: Gateway, clientCaps: () => Promise<ClientCapabilities>): UpstreamHooks {
  const relisting = new Map<Upstream, Promise<void>>();
  const dirty = new Set<Upstream>();
  const lastRelistError = new Map<Upstream, string>();
  const lastRelist = new Map<Upstream, number>();

  /**
   * Coalesces bursts of list_changed: one relist at a time per server, one more if asked meanwhile, and at most one
   * per CAPS.relistIntervalMs (a server flooding list_changed costs the gateway one relist a second).
   */
  const relist = (up: Upstream): void => {
    dirty.add(up);
    if (relisting.has(up)) return;
    const run = async () => {
      while (dirty.has(up)) {
        const wait = (lastRelist.get(up) ?? 0) + CAPS.relistIntervalMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait).unref());
        dirty.delete(up);
        lastRelist.set(up, Date.now());
        if (process.env.MCPBOX_DEBUG) gw.options.log(`${up.name}: relisting`);
        const changed = await up.relist().then(
          (c) => (lastRelistError.delete(up), c),
          (e: unknown) => {
            const why = `${up.name}: its new lists are not served: ${gw.options.redact(messageOf(e))}`; // may quote a name
            if (lastRelistError.get(up) !== why) gw.options.log(why);
            lastRelistError.set(up, why);
            return false;
          },
        );
        if (changed) {
          rememberLists(gw, up);
          announce(gw);
        }
      }
      relisting.delete(up);
    };
    relisting.set(up, run());
  };

  return {
    clientCapabilities: clientCaps,

    /**
     * A server's request to the client: policy first (client-requests.ts), then at most PENDING_PER_CLIENT waiting
     * on the client it goes to (PENDING_PER_SERVER on all together): one that never answers fills only its own.
     */
    async onRequest(up: Upstream, request: Request, signal: AbortSignal): Promise<Result> {
      const vetted = vetClientRequest(up.server, request);
      // the client waiting longest on a call to this server: a legacy one is asked, a modern one's call carries it; a
      // call parked for its client's retry only when no client waits on a call to this server now
      const session = gw.sessionFor(up);
      const call = gw.roundTrips.callFor(up);
      const since = session?.inflightSince.get(up);
      const modern = call && (since === undefined || (call.waiter !== undefined && call.startedAt <= since)) ? call : undefined;
      const slot = gw.pendingRequests.take(up, up.name, modern ? modern.client : clientKey(session));
      if ("refused" in slot) {
        if (slot.first) gw.options.log(slot.refused); // once per burst
        throw new RpcError(ErrorCode.InvalidRequest, slot.refused);
      }
      try {
        if (modern) return await askModern(modern, up, vetted);
        if (!session) throw new RpcError(ErrorCode.InvalidRequest, `mcpbox has no client connected to pass ${vetted.method} from server ${up.name} on to`);
        return await askLegacyClient(session, up, vetted, signal);
      } catch (e) {
        throw relayed(e); // the client's words reach the server as the client said them
      } finally {
        slot.release();
      }
    },

    onNotification(up: Upstream, n: Notification): void {
      const params = (n.params ?? {}) as Record<string, unknown>;
      switch (n.method) {
        case "notifications/tools/list_changed":
        case "notifications/prompts/list_changed":
        case "notifications/resources/list_changed":
          relist(up);
          return;
        case "notifications/message":
          if (admitNotification(gw, up)) broadcastLog(gw, up, params);
          return;
        case "notifications/resources/updated": {
          // only for its own URIs: one it was subscribed to, or one the catalog routes to it
          if (typeof params.uri !== "string" || !admitNotification(gw, up) || !ownsUri(gw, up, params.uri)) return;
          const uri = params.uri;
          const update = { method: n.method, params: { ...params, uri: gw.catalog.exposedUri(up.name, uri) } };
          // to the clients that subscribed to it; when none did (the catalog routes it), to every client
          const subscribed = [...gw.sessions].filter((s) => s.subscriptions.get(up)?.has(uri));
          // a session holding a listen stream's URIs for a client (heldFor) stands for that client: each client once
          const targets = new Set([...(subscribed.length > 0 ? subscribed : gw.sessions)].map((s) => s.heldFor ?? s));
          for (const s of targets) s.notify(update);
          for (const listener of gw.changeListeners) listener({ kind: "resource", uri: update.params.uri, params: update.params });
          return;
        }
        case "notifications/tasks/status": {
          // to the client whose task it is (its handle names the server, tasks.ts); a transparent proxy: as it is
          if (!admitNotification(gw, up)) return;
          const status = gw.transparent ? params : withTaskHandles(params, up.name);
          const owner = gw.taskOwners.get(String(status.taskId));
          for (const s of owner ? [owner] : gw.transparent ? gw.sessions : []) s.notify({ method: n.method, params: status });
          return;
        }
        default:
          return; // unknown notifications are dropped (SPEC 9): a server says only what the gateway understands
      }
    },

    onListsChanged(): void {
      announce(gw);
    },

    onState(up: Upstream, error?: string): void {
      const s = up.server;
      gw.options.events.emit({
        type: "server",
        at: Date.now(),
        server: up.name,
        state: up.state,
        containerId: up.containerId,
        restarts: up.restarts,
        startedAt: up.startedAt,
        limits: { memoryBytes: s.limits.memoryBytes, cpus: s.limits.cpus, pids: s.limits.pids },
        error: error && gw.options.redact(error),
      });
      if (up.state === "running") {
        gw.failures.recovered(up.name);
        rememberLists(gw, up);
        const l = up.lists;
        gw.options.log(`${up.name}: running (${l.tools.length} tools, ${l.prompts.length} prompts, ${l.resources.length} resources)`);
      } else if ((up.state === "failed" || up.state === "restarting") && error) {
        gw.failures.report(up.name, gw.options.redact(error), nextStep(up));
      } else if (up.state === "starting" && gw.failures.told(up.name)) {
        // a retry of a failure already told: nothing new to say
      } else if (up.state !== "idle") {
        gw.options.log(`${up.name}: ${up.state}${error ? `: ${gw.options.redact(error)}` : ""}`);
      }
    },

    onStderr(up: Upstream, line: string): void {
      const clean = gw.options.redact(line);
      gw.options.events.emit({ type: "stderr", at: Date.now(), server: up.name, line: clean });
      // mcpbox's own stderr (a pipe nobody reads, or reads late) queues what it cannot write in memory: a server's
      // lines are not copied while that backlog is large, and how many were not is said once it is written again
      if (process.stderr.writableLength > STDERR_BACKLOG_BYTES) return void notShown(up, "mcpbox's stderr was not being read");
      // and within a rate: a client that reads it keeps it in a log file of its own, which a flood would fill
      let budget = stderrBudget.get(up);
      if (!budget) stderrBudget.set(up, (budget = new TokenBucket(STDERR_BYTES_PER_SECOND, STDERR_BURST_BYTES)));
      if (!budget.take(clean.length + up.name.length + 3)) return void notShown(up, `over ${STDERR_BYTES_PER_SECOND / 1024} KiB a second`);
      const skipped = unlogged.get(up);
      if (skipped !== undefined) {
        unlogged.delete(up);
        gw.options.log(`${up.name}: ${skipped.count} stderr lines not shown (${skipped.why}; the monitor has the latest)`);
      }
      gw.options.log(`[${up.name}] ${clean}`);
    },

    onRawMessage(up: Upstream, message: unknown): boolean {
      return gw.fastLane.fromServer(up, message);
    },

    onDisconnect(up: Upstream, error: ProtocolError): void {
      gw.fastLane.serverDown(up, error);
    },

    async onReady(up: Upstream, client: Client): Promise<void> {
      // a 2026-07-28 server has no setLevel nor resources/subscribe (the level rides each request); its list changes
      // come on a subscriptions/listen stream, heard as a 2025-11-25 server's list_changed are (onNotification)
      if (up.era === "modern") return void up.listen().catch(() => {});
      const level = gw.upstreamLogLevel();
      if (level && up.capabilities?.logging) await client.setLoggingLevel(level).catch(() => {});
      for (const uri of up.subscriptions) await client.subscribeResource({ uri }).catch(() => {});
    },
  };
}

/**
 * A server's request (vetted: client-requests.ts) to a 2025-11-25 client, as a real request: what the client lacks is
 * refused to the server (roots: none), its roots are translated to the mount targets (SPEC 4.1).
 */
export async function askLegacyClient(session: ClientSession, up: Upstream, vetted: Request, signal: AbortSignal): Promise<Result> {
  const kind = requestKind(vetted.method)!;
  if (!session.capabilities?.[kind]) {
    if (kind === "roots") return { roots: [] };
    throw new RpcError(ErrorCode.InvalidRequest, `the client does not support ${kind} (server ${up.name} asked for it)`);
  }
  const client = session.legacy;
  if (!client) throw new RpcError(ErrorCode.InvalidRequest, `the client cannot be asked ${vetted.method} (server ${up.name} asked for it)`);
  if (vetted.method === "roots/list") {
    const { roots } = await client.listRoots(undefined, { signal, timeout: up.server.timeouts.callMs });
    return { roots: translateRoots(roots, up.server.mounts) };
  }
  return await client.request(vetted as never, specTypeSchemas.Result as never, { signal, timeout: up.server.timeouts.callMs });
}

/**
 * A server's request to a 2026-07-28 client, which has no channel for it: it rides the client's call to that server
 * as `input_required` (round-trips.ts); the client's retry brings the answer.
 */
async function askModern(call: CallState, up: Upstream, request: Request): Promise<Result> {
  const kind = requestKind(request.method)!;
  if (!call.capabilities?.[kind]) {
    if (kind === "roots") return { roots: [] };
    // SEP-2575: a call that needs what the client lacks, before it could ask the client anything, is answered -32021
    // naming it (HTTP 400) and ends. A 2025-11-25 server was told what the policy allows, not what this client
    // declared: once it has asked the client something, a further question the client cannot answer fails at the
    // server only, which then answers the call as it sees fit.
    const why = `the client does not support ${kind} (server ${up.name} asked for it)`;
    if (!call.hasAsked) call.refuse(new MissingRequiredClientCapabilityError({ requiredCapabilities: { [kind]: {} } }, why));
    throw new RpcError(ErrorCode.InvalidRequest, why);
  }
  // the server's own request bookkeeping (its progress token) means nothing inside the client's answer
  const { _meta: _dropped, ...params } = (request.params ?? {}) as Record<string, unknown>;
  return call.ask({ method: request.method, params } as Request);
}

/** What happens after a failure, said once with it. */
function nextStep(up: Upstream): string {
  if (up.unavailable) return "";
  if (up.server.restart === "never") return "restart: never, it stays down";
  const ms = up.retryInMs;
  return ms === undefined ? "" : `retrying in ${Math.round(ms / 1000)}s`;
}

function ownsUri(gw: Gateway, up: Upstream, uri: string): boolean {
  return up.subscriptions.has(uri) || routeResource(gw.catalog, gw.catalog.exposedUri(up.name, uri))?.server === up.name;
}

/**
 * Unwritten bytes of mcpbox's stderr past which a server's stderr lines are not copied to it (boundary 5: Node queues
 * a pipe's writes in memory, and a client may never read serve's stderr).
 */
const STDERR_BACKLOG_BYTES = 1 << 20;
/**
 * A server's stderr copied to mcpbox's at most this fast, after a burst (boundary 5): an MCP client that reads serve's
 * stderr keeps it in a log file (Claude Desktop's mcp-server-<name>.log), which a server's flood (tens of MiB a
 * second) would fill. The monitor still gets every line.
 */
const STDERR_BYTES_PER_SECOND = 64 * 1024;
const STDERR_BURST_BYTES = 1 << 20;
const stderrBudget = new WeakMap<Upstream, TokenBucket>();
/** per server: its stderr lines not copied to mcpbox's stderr since the last one that was, and why the last was not */
const unlogged = new WeakMap<Upstream, { count: number; why: string }>();
const notShown = (up: Upstream, why: string) => unlogged.set(up, { count: (unlogged.get(up)?.count ?? 0) + 1, why });

const summaries = new WeakMap<Upstream, NodeJS.Timeout>();

/**
 * Whether one more notification of this server may go to the client: within its rate (CAPS), and while the client
 * keeps up. What is dropped is summed up on stderr once a second, not a line per drop.
 */
export function admitNotification(gw: Gateway, up: Upstream): boolean {
  if (up.notifications.take()) return true;
  if (!summaries.has(up)) {
    const timer = setTimeout(() => {
      summaries.delete(up);
      gw.options.log(capMessage.notifications(up.name, up.notifications.drained()));
    }, 1000);
    timer.unref();
    summaries.set(up, timer);
  }
  return false;
}

/**
 * A server's log message as the clients see it: the logger names the server in an aggregate; a transparent proxy
 * passes the server's own words, logger included (or absent), as they are.
 */
export function logFrom(server: string, params: Record<string, unknown>, transparent = false): Record<string, unknown> {
  if (transparent) return params;
  return { ...params, logger: typeof params.logger === "string" ? `${server}/${params.logger}` : server };
}

/**
 * A server's log message to every legacy client whose level lets it through, and to each 2026-07-28 request waiting
 * on a call to that server that asked for that level (its `_meta` logLevel).
 */
export function broadcastLog(gw: Gateway, up: Upstream, params: Record<string, unknown>): void {
  const n = { method: "notifications/message", params: logFrom(up.name, params, gw.transparent) };
  for (const s of gw.sessions) if (s.wantsLevel(params.level)) s.notify(n);
  const rank = levelRank(params.level);
  const told = new Set<unknown>();
  for (const c of gw.roundTrips.callsTo(up)) {
    if (c.logLevel === undefined || !c.sendNotification || told.has(c.waiter)) continue;
    if (rank !== -1 && rank < levelRank(c.logLevel)) continue;
    told.add(c.waiter);
    void c.sendNotification(n).catch(() => {});
  }
}

/**
 * Keeps a server's lists in the lists cache (a lazy server is listed from it), unless they hold a secret value it was
 * given (SPEC 4.5: never written anywhere; catalog-cache.ts refuses the same): they are then only kept in memory.
 */
function rememberLists(gw: Gateway, up: Upstream): void {
  const cache = gw.options.listCache;
  if (!cache) return;
  const text = JSON.stringify(up.lists);
  if (gw.options.redact(text) !== text) return;
  cache.write(up.server, up.lists);
}

/** Rebuilds the catalog and tells every client which lists changed. */
export function announce(gw: Gateway): void {
  const changed = gw.rebuildCatalog();
  for (const s of gw.sessions) s.listsChanged(changed);
  if (changed.tools || changed.prompts || changed.resources) for (const listener of gw.changeListeners) listener({ kind: "lists", ...changed });
}
