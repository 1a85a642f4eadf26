/**
 * A client's requests, answered from the catalog or routed to the owning server (SPEC 4.1), the same for both eras:
 * a handler host (below) registers each with the SDK server of the client's era.
 */
import { specTypeSchemas } from "@modelcontextprotocol/server";
import type {
  CallToolRequest,
  CompleteRequest,
  GetPromptRequest,
  ReadResourceRequest,
  Request,
  Server,
  SetLevelRequest,
  SubscribeRequest,
  UnsubscribeRequest,
} from "@modelcontextprotocol/server";
import { routeResource } from "./catalog.ts";
import { parseTaskHandle, withTaskHandles } from "./tasks.ts";
import { aggregateCacheHint } from "./cache-hints.ts";
import { forward, forwardModern, record, type Extra } from "./calls.ts";
import { checkPathArguments } from "./paths.ts";
import { ErrorCode, RpcError } from "./rpc-error.ts";
import type { Hub as Gateway } from "./hub.ts";
import type { ClientSession } from "./session.ts";
import { callTool, mountTargets } from "./tool-call.ts";
import type { Upstream } from "./upstream.ts";

/** Where a session's handlers are registered: its SDK server, of either era. */
export interface HandlerHost {
  readonly era: "legacy" | "modern";
  on(method: string, handler: (request: never, extra: Extra) => Promise<unknown>): void;
  fallback(handler: (request: Request, extra: Extra) => Promise<unknown>): void;
}

/** The reserved keys of a 2026-07-28 request's `_meta` envelope, as the SDK lifts them (ctx.mcpReq.envelope). */
const ENVELOPE = {
  capabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
} as const;

/** The methods the 2026-07-28 revision dropped (a modern client asks per request, or on its listen stream). */
const LEGACY_ONLY = new Set(["resources/subscribe", "resources/unsubscribe", "logging/setLevel", "tasks/get", "tasks/result", "tasks/cancel", "tasks/list"]);

interface ModernContext {
  mcpReq: {
    signal: AbortSignal;
    notify(n: unknown): Promise<void>;
    _meta?: Record<string, unknown>;
    envelope?: Record<string, unknown>;
    inputResponses?: Record<string, unknown>;
    requestState(): unknown;
  };
}

/**
 * A 2025-11-25 client's server (an SDK v2 Server bound to that era at initialize): each request's signal and progress.
 * tools/call is dispatched from the SDK's fallback, past its tools/call wrapper, which refuses the tasks extension's
 * answer to a task-augmented call (CreateTaskResult); the request and the answer are checked here instead, as the
 * 2025-11-25 schemas have them (a task answer for a call that asked for a task, else a tool result).
 */
export function legacyHost(server: Server): HandlerHost {
  const extraOf = (ctx: ModernContext): Extra => ({ signal: ctx.mcpReq.signal, sendNotification: (n) => ctx.mcpReq.notify(n) });
  let callTool: ((request: never, extra: Extra) => Promise<unknown>) | undefined;
  let rest: ((request: Request, extra: Extra) => Promise<unknown>) | undefined;
  server.fallbackRequestHandler = (async (request: Request, ctx: ModernContext) => {
    if (request.method === "tools/call" && callTool) return checkedToolCall(request, (r) => callTool!(r as never, extraOf(ctx)));
    if (rest) return rest(request, extraOf(ctx));
    throw new RpcError(ErrorCode.MethodNotFound, "Method not found");
  }) as never;
  return {
    era: "legacy",
    on(method, handler) {
      if (method === "tools/call") return void (callTool = handler);
      server.setRequestHandler(method as never, ((request: never, ctx: ModernContext) => handler(request, extraOf(ctx))) as never);
    },
    fallback(handler) {
      rest = handler;
    },
  };
}

/** A 2025-11-25 tools/call, its request and its answer checked against the schemas of that revision. */
async function checkedToolCall(request: Request, run: (request: CallToolRequest) => Promise<unknown>): Promise<unknown> {
  const asked = specTypeSchemas.CallToolRequest["~standard"].validate(request);
  if (asked.issues) throw new RpcError(ErrorCode.InvalidParams, `Invalid tools/call request: ${JSON.stringify(asked.issues, null, 2)}`);
  const result = await run(asked.value);
  const task = (asked.value.params as { task?: unknown }).task !== undefined;
  const answer = (task ? specTypeSchemas.CreateTaskResult : specTypeSchemas.CallToolResult)["~standard"].validate(result);
  if (answer.issues) throw new RpcError(ErrorCode.InvalidParams, `Invalid ${task ? "task creation" : "tools/call"} result: ${JSON.stringify(answer.issues, null, 2)}`);
  return answer.value;
}

/**
 * A 2026-07-28 client's server: each request's envelope says who asks and what it can do (kept on the session for
 * the servers' requests during it), its `_meta` (trace context: traceparent, tracestate, baggage) goes on as it came.
 */
export function modernHost(server: Server, session: ClientSession): HandlerHost {
  const extraOf = (ctx: ModernContext): Extra => {
    const env = ctx.mcpReq.envelope ?? {};
    const capabilities = env[ENVELOPE.capabilities] as ClientSession["capabilities"];
    const logLevel = env[ENVELOPE.logLevel];
    if (capabilities) session.capabilities = capabilities;
    if (env[ENVELOPE.clientInfo]) session.clientInfo = env[ENVELOPE.clientInfo] as ClientSession["clientInfo"];
    const state = ctx.mcpReq.requestState();
    return {
      signal: ctx.mcpReq.signal,
      sendNotification: (n) => ctx.mcpReq.notify(n),
      modern: {
        logLevel: typeof logLevel === "string" ? (logLevel as never) : undefined,
        capabilities,
        inputResponses: ctx.mcpReq.inputResponses,
        requestState: typeof state === "string" ? state : undefined,
      },
    };
  };
  /** the request as the servers get it: its own `_meta` back (the SDK lifted the envelope out of it) */
  const withMeta = (request: { params?: Record<string, unknown> }, ctx: ModernContext) => {
    const meta = ctx.mcpReq._meta;
    if (!meta || Object.keys(meta).length === 0) return request;
    return { ...request, params: { ...request.params, _meta: meta } };
  };
  return {
    era: "modern",
    on(method, handler) {
      if (LEGACY_ONLY.has(method)) return;
      try {
        server.setRequestHandler(method as never, ((request: { params?: Record<string, unknown> }, ctx: ModernContext) =>
          handler(withMeta(request, ctx) as never, extraOf(ctx))) as never);
      } catch {
        // a method of a capability this gateway does not offer now (no server has it): the SDK answers it as unknown
      }
    },
    // No fallback: a 2026-07-28 method the gateway does not serve is answered by the SDK's binding before dispatch,
    // -32601 with HTTP 404 as SEP-2575 requires (a handler's -32601 would go out in-band, HTTP 200).
    fallback() {},
  };
}

/** One client's handlers: answered from the shared catalog, routed to the shared servers, on behalf of `session`. */
export function registerHandlers(gw: Gateway, session: ClientSession, host: HandlerHost): void {
  // cacheable results (2026-07-28): the shortest lifetime of the servers' parts, private if any part is
  const cache = () => (host.era === "modern" ? aggregateCacheHint([...gw.upstreams.values()].map((u) => u.cacheHint)) : {});
  const s = {
    setRequestHandler: (method: string, handler: (request: never, extra: Extra) => Promise<unknown>) => host.on(method, handler),
  };
  s.setRequestHandler("tools/list", async () => ({ tools: (await gw.ready()).tools, ...cache() }));
  s.setRequestHandler("prompts/list", async () => ({ prompts: (await gw.ready()).prompts, ...cache() }));
  s.setRequestHandler("resources/list", async () => ({ resources: (await gw.ready()).resources, ...cache() }));
  s.setRequestHandler("resources/templates/list", async () => ({ resourceTemplates: (await gw.ready()).templates, ...cache() }));
  s.setRequestHandler("tools/call", (request: CallToolRequest, extra) => callTool(gw, session, request, extra));

  s.setRequestHandler("prompts/get", async (request: GetPromptRequest, extra) => {
    const name = request.params.name;
    const route = gw.catalog.promptRoutes.get(name) ?? (await gw.ready()).promptRoutes.get(name);
    if (!route) throw new RpcError(ErrorCode.InvalidParams, `unknown prompt: ${name}`);
    const params = { ...request.params, name: route.name };
    const info = { method: "prompts/get", tool: route.name, args: request.params.arguments };
    const send = extra.modern ? forwardModern : forward;
    return send(gw, session, gw.upstream(route.server), { method: "prompts/get", params }, extra, info);
  });

  s.setRequestHandler("resources/read", async (request: ReadResourceRequest, extra) => {
    const { server, uri, listed } = await resourceOwner(gw, request.params.uri);
    const info = { method: "resources/read", tool: uri };
    const up = gw.upstream(server);
    const outside = listed ? undefined : readOutside(up, uri);
    if (outside !== undefined) {
      record(gw, server, info, "denied", 0, 0, outside);
      gw.options.log(`${server}: refused a read of ${gw.options.redact(uri)}: ${gw.options.redact(outside)}`);
      throw new RpcError(ErrorCode.InvalidParams, `mcpbox refused this read: ${outside}`, { uri: request.params.uri });
    }
    const send = extra.modern ? forwardModern : forward;
    return send(gw, session, up, { method: "resources/read", params: { ...request.params, uri } }, extra, info);
  });

  s.setRequestHandler("resources/subscribe", async (request: SubscribeRequest, extra) => {
    const { server, uri } = await resourceOwner(gw, request.params.uri);
    const up = gw.upstream(server);
    if (!up.capabilities?.resources?.subscribe) throw new RpcError(ErrorCode.InvalidParams, `server ${server} does not support resource subscriptions`);
    if (!up.subscriptions.has(uri)) {
      if (up.era === "modern") {
        // a 2026-07-28 server hears of it on the gateway's subscriptions/listen stream (upstream.ts listen)
        up.subscriptions.add(uri);
        try {
          await up.listen();
        } catch (e) {
          up.subscriptions.delete(uri);
          throw e;
        }
      } else await forward(gw, session, up, { method: "resources/subscribe", params: { ...request.params, uri } }, extra);
    }
    up.subscriptions.add(uri);
    let mine = session.subscriptions.get(up);
    if (!mine) session.subscriptions.set(up, (mine = new Set()));
    mine.add(uri);
    return {};
  });

  s.setRequestHandler("resources/unsubscribe", async (request: UnsubscribeRequest, extra) => {
    const { server, uri } = await resourceOwner(gw, request.params.uri);
    const up = gw.upstream(server);
    session.subscriptions.get(up)?.delete(uri);
    if ([...gw.sessions].some((other) => other.subscriptions.get(up)?.has(uri))) return {}; // another client still wants it
    up.subscriptions.delete(uri);
    if (up.era === "modern") await up.listen();
    else if (up.capabilities?.resources?.subscribe) await forward(gw, session, up, { method: "resources/unsubscribe", params: { ...request.params, uri } }, extra);
    return {};
  });

  s.setRequestHandler("completion/complete", (request: CompleteRequest, extra) => complete(gw, session, request, extra));

  // This client's level filters what it gets; the servers log at the most verbose level any client asked for.
  s.setRequestHandler("logging/setLevel", async (request: SetLevelRequest) => {
    session.logLevel = request.params.level;
    const level = gw.upstreamLogLevel() ?? request.params.level;
    await Promise.allSettled(
      [...gw.upstreams.values()]
        .filter((u) => u.state === "running" && u.capabilities?.logging && u.era !== "modern") // a 2026-07-28 server: per request
        .map((u) => u.request({ method: "logging/setLevel", params: { level } }, { timeout: 10_000 })),
    );
    return {};
  });

  // The tasks extension: a handle names its server (tasks.ts); a transparent proxy passes its server's ids as they are.
  for (const method of ["tasks/get", "tasks/result", "tasks/cancel"] as const) {
    s.setRequestHandler(method, async (request: { params: { taskId: string } }, extra) => {
      if (gw.transparent) return forward(gw, session, [...gw.upstreams.values()][0]!, { method, params: request.params }, extra);
      const named = parseTaskHandle(request.params.taskId);
      const up = named && gw.upstreams.get(named.server);
      // a task is its creator's: another client can neither read, cancel nor take over its status (the same answer as
      // for a handle that does not exist, so handles cannot be probed)
      if (!named || !up || !ownsTask(gw, session, request.params.taskId)) throw new RpcError(ErrorCode.InvalidParams, `unknown task: ${request.params.taskId}`);
      const result = await forward(gw, session, up, { method, params: { ...request.params, taskId: named.taskId } }, extra);
      return withTaskHandles(result, up.name);
    });
  }
  s.setRequestHandler("tasks/list", async (request: { params?: Record<string, unknown> }, extra) => {
    const ups = [...gw.upstreams.values()].filter((u) => u.state === "running" && u.capabilities?.tasks?.list);
    if (gw.transparent && ups[0]) return forward(gw, session, ups[0], request as Request, extra);
    const lists = await Promise.allSettled(ups.map((u) => forward(gw, session, u, { method: "tasks/list", params: {} }, extra).then((r) => withTaskHandles(r, u.name))));
    const mine = (t: unknown) => ownsTask(gw, session, String((t as { taskId?: unknown } | null)?.taskId)); // this client's tasks only
    return { tasks: lists.flatMap((l) => (l.status === "fulfilled" && Array.isArray(l.value.tasks) ? l.value.tasks.filter(mine) : [])) };
  });

  // A transparent proxy passes on what it does not know; an aggregate cannot tell where it would go.
  host.fallback(async (request, extra) => {
    if (!gw.transparent) throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const up = [...gw.upstreams.values()][0]!;
    return forward(gw, session, up, { method: request.method, params: request.params } as Request, extra);
  });
}

/**
 * A task made on a long-lived connection is that client's. One made by a per-request (2026-07-28 HTTP) client has no
 * connection to belong to: the bearer token is all that identifies such a client, so any per-request client may use it.
 */
function ownsTask(gw: Gateway, session: ClientSession, handle: string): boolean {
  const owner = gw.taskOwners.get(handle);
  return owner ? owner === session : session.perRequest;
}

/**
 * Why a read must not reach its server, or undefined. A URI the server did not list as it is (one a template of its
 * matches, or any URI of the only server offering resources) is the client's argument, chosen by a model a prompt
 * injection may drive (clients give the model a tool that reads any resource URI): the path guard judges it as a
 * tool's `uri` argument (paths.ts), so a `file:` URI in any reading stays inside the server's mounts (or its /tmp)
 * and a URL does not climb with `..`. A template `file:///{+path}` otherwise read `file:///proc/self/environ` (the
 * server's secrets) or any file of its image. A URI the server listed itself is its own offer (not judged).
 */
function readOutside(up: Upstream, uri: string): string | undefined {
  const verdict = checkPathArguments({ uri }, mountTargets(up.server));
  return verdict.ok ? undefined : verdict.reason;
}

async function resourceOwner(gw: Gateway, uri: string): Promise<{ server: string; uri: string; listed: boolean }> {
  let catalog = gw.catalog;
  let found = routeResource(catalog, uri);
  if (!found) found = routeResource((catalog = await gw.ready()), uri);
  if (found) return { ...found, listed: catalog.resourceRoutes.has(uri) };
  const offering = [...gw.upstreams.values()].filter((u) => u.capabilities?.resources);
  if (offering.length === 1) return { server: offering[0]!.name, uri, listed: false };
  // as an SDK v2 server answers a resource it does not have (SEP-2164): -32602 naming the URI in data
  throw new RpcError(ErrorCode.InvalidParams, `unknown resource: ${uri}`, { uri });
}

/** Completions follow their reference: a prompt's gateway name, or a resource template's URI. */
async function complete(gw: Gateway, session: ClientSession, request: CompleteRequest, extra: Extra) {
  const ref = request.params.ref;
  let server: string;
  let newRef: typeof ref;
  if (ref.type === "ref/prompt") {
    const route = gw.catalog.promptRoutes.get(ref.name) ?? (await gw.ready()).promptRoutes.get(ref.name);
    if (!route) throw new RpcError(ErrorCode.InvalidParams, `unknown prompt: ${ref.name}`);
    server = route.server;
    newRef = { ...ref, name: route.name };
  } else {
    const route = gw.catalog.templateRoutes.get(ref.uri) ?? (await gw.ready()).templateRoutes.get(ref.uri);
    const owner = route ? { server: route.server, uri: route.name } : await resourceOwner(gw, ref.uri);
    server = owner.server;
    newRef = { ...ref, uri: owner.uri };
  }
  const up = gw.upstream(server);
  if (!up.capabilities?.completions) return { completion: { values: [] } };
  return forward(gw, session, up, { method: "completion/complete", params: { ...request.params, ref: newRef } }, extra);
}
