/**
 * Traffic from the servers to the client (SPEC 4.1): requests (sampling, elicitation, translated roots),
 * notifications (logging with the server's name, resource updates, list changes), states and stderr.
 */
import { ResultSchema, type McpError, type ClientCapabilities, type Notification, type Request, type Result } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Gateway } from "./gateway.ts";
import { translateRoots } from "./roots.ts";
import type { Upstream, UpstreamHooks } from "./upstream.ts";

export function forwardingHooks(gw: Gateway, clientCaps: () => Promise<ClientCapabilities>): UpstreamHooks {
  const relisting = new Map<Upstream, Promise<void>>();
  const dirty = new Set<Upstream>();

  /** Coalesces bursts of list_changed: one relist at a time per server, one more if asked meanwhile. */
  const relist = (up: Upstream): void => {
    dirty.add(up);
    if (relisting.has(up)) return;
    const run = async () => {
      while (dirty.delete(up)) {
        if (await up.relist().catch(() => false)) {
          gw.options.listCache?.write(up.server, up.lists);
          announce(gw);
        }
      }
      relisting.delete(up);
    };
    relisting.set(up, run());
  };

  return {
    clientCapabilities: clientCaps,

    async onRequest(up: Upstream, request: Request, signal: AbortSignal): Promise<Result> {
      if (request.method === "roots/list") {
        const caps = await clientCaps();
        if (!caps.roots) return { roots: [] };
        const { roots } = await gw.server.listRoots(undefined, { signal, timeout: up.server.timeouts.callMs });
        return { roots: translateRoots(roots, up.server.mounts) };
      }
      return gw.server.request(request as never, ResultSchema, { signal, timeout: up.server.timeouts.callMs });
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
          notify(gw, { method: n.method, params: logFrom(up.name, params) });
          return;
        case "notifications/resources/updated": {
          const uri = typeof params.uri === "string" ? gw.catalog.exposedUri(up.name, params.uri) : params.uri;
          notify(gw, { method: n.method, params: { ...params, uri } });
          return;
        }
        default:
          notify(gw, n);
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
        gw.options.listCache?.write(up.server, up.lists);
        const l = up.lists;
        gw.options.log(`${up.name}: running (${l.tools.length} tools, ${l.prompts.length} prompts, ${l.resources.length} resources)`);
      } else if (up.state !== "idle") {
        gw.options.log(`${up.name}: ${up.state}${error ? `: ${gw.options.redact(error)}` : ""}`);
      }
    },

    onStderr(up: Upstream, line: string): void {
      const clean = gw.options.redact(line);
      gw.options.events.emit({ type: "stderr", at: Date.now(), server: up.name, line: clean });
      gw.options.log(`[${up.name}] ${clean}`);
    },

    onRawMessage(up: Upstream, message: unknown): boolean {
      return gw.fastLane?.fromServer(up, message) ?? false;
    },

    onDisconnect(up: Upstream, error: McpError): void {
      gw.fastLane?.serverDown(up, error);
    },

    async onReady(up: Upstream, client: Client): Promise<void> {
      if (gw.logLevel && up.capabilities?.logging) await client.setLoggingLevel(gw.logLevel).catch(() => {});
      for (const uri of up.subscriptions) await client.subscribeResource({ uri }).catch(() => {});
    },
  };
}

/** A server's log message as the client sees it: the logger names the server. */
export function logFrom(server: string, params: Record<string, unknown>): Record<string, unknown> {
  return { ...params, logger: typeof params.logger === "string" ? `${server}/${params.logger}` : server };
}

/** Rebuilds the catalog and tells the client which lists changed. */
export function announce(gw: Gateway): void {
  const changed = gw.rebuildCatalog();
  if (!gw.initialized) return;
  if (changed.tools) void gw.server.sendToolListChanged().catch(() => {});
  if (changed.prompts) void gw.server.sendPromptListChanged().catch(() => {});
  if (changed.resources) void gw.server.sendResourceListChanged().catch(() => {});
}

function notify(gw: Gateway, n: Notification): void {
  void gw.server.notification(n as never).catch(() => {});
}
