/** The client's requests, answered from the catalog or routed to the owning server (SPEC 4.1). */
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CompleteRequest,
  type Request,
} from "@modelcontextprotocol/sdk/types.js";
import { routeResource } from "./catalog.ts";
import { forward, type Extra } from "./calls.ts";
import { RpcError } from "./rpc-error.ts";
import type { Gateway } from "./gateway.ts";
import type { ClientSession } from "./session.ts";
import { callTool } from "./tool-call.ts";

/** One client's handlers: answered from the shared catalog, routed to the shared servers, on behalf of `session`. */
export function registerHandlers(gw: Gateway, session: ClientSession): void {
  const s = session.server;
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await gw.ready()).tools }));
  s.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: (await gw.ready()).prompts }));
  s.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: (await gw.ready()).resources }));
  s.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: (await gw.ready()).templates }));
  s.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(gw, session, request, extra) as never);

  s.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const name = request.params.name;
    const route = gw.catalog.promptRoutes.get(name) ?? (await gw.ready()).promptRoutes.get(name);
    if (!route) throw new RpcError(ErrorCode.InvalidParams, `unknown prompt: ${name}`);
    const params = { ...request.params, name: route.name };
    const info = { method: "prompts/get", tool: route.name, args: request.params.arguments };
    return forward(gw, session, gw.upstream(route.server), { method: "prompts/get", params }, extra, info) as never;
  });

  s.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { server, uri } = await resourceOwner(gw, request.params.uri);
    const info = { method: "resources/read", tool: uri };
    return forward(gw, session, gw.upstream(server), { method: "resources/read", params: { ...request.params, uri } }, extra, info) as never;
  });

  s.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const { server, uri } = await resourceOwner(gw, request.params.uri);
    const up = gw.upstream(server);
    if (!up.capabilities?.resources?.subscribe) throw new RpcError(ErrorCode.InvalidParams, `server ${server} does not support resource subscriptions`);
    if (!up.subscriptions.has(uri)) await forward(gw, session, up, { method: "resources/subscribe", params: { ...request.params, uri } }, extra);
    up.subscriptions.add(uri);
    let mine = session.subscriptions.get(up);
    if (!mine) session.subscriptions.set(up, (mine = new Set()));
    mine.add(uri);
    return {};
  });

  s.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
    const { server, uri } = await resourceOwner(gw, request.params.uri);
    const up = gw.upstream(server);
    session.subscriptions.get(up)?.delete(uri);
    if ([...gw.sessions].some((other) => other.subscriptions.get(up)?.has(uri))) return {}; // another client still wants it
    up.subscriptions.delete(uri);
    if (up.capabilities?.resources?.subscribe) await forward(gw, session, up, { method: "resources/unsubscribe", params: { ...request.params, uri } }, extra);
    return {};
  });

  s.setRequestHandler(CompleteRequestSchema, (request, extra) => complete(gw, session, request, extra) as never);

  // This client's level filters what it gets; the servers log at the most verbose level any client asked for.
  s.setRequestHandler(SetLevelRequestSchema, async (request) => {
    session.logLevel = request.params.level;
    const level = gw.upstreamLogLevel() ?? request.params.level;
    await Promise.allSettled(
      [...gw.upstreams.values()]
        .filter((u) => u.state === "running" && u.capabilities?.logging)
        .map((u) => u.request({ method: "logging/setLevel", params: { level } }, { timeout: 10_000 })),
    );
    return {};
  });

  // A transparent proxy passes on what it does not know; an aggregate cannot tell where it would go.
  s.fallbackRequestHandler = async (request, extra) => {
    if (!gw.transparent) throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const up = [...gw.upstreams.values()][0]!;
    return forward(gw, session, up, { method: request.method, params: request.params } as Request, extra as Extra) as never;
  };
}

async function resourceOwner(gw: Gateway, uri: string): Promise<{ server: string; uri: string }> {
  const found = routeResource(gw.catalog, uri) ?? routeResource(await gw.ready(), uri);
  if (found) return found;
  const offering = [...gw.upstreams.values()].filter((u) => u.capabilities?.resources);
  if (offering.length === 1) return { server: offering[0]!.name, uri };
  throw new RpcError(ErrorCode.InvalidParams, `unknown resource: ${uri}`);
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
