/**
 * `serve --http` (SPEC 4.9): Node's http server in front of the SDK's Streamable HTTP transport, at `/mcp`.
 * This file decides only who may talk and which transport a request belongs to; the SDK transport speaks the
 * protocol (SSE, the GET stream, DELETE, JSON-RPC framing). Every request passes guard.ts first (Host, Origin,
 * token), then: a known Mcp-Session-Id goes to its session; an unknown one is 404; an `initialize` without one opens
 * a 2025-11-25 session; any other request without one that the SDK classifies as 2026-07-28 goes to its per-request
 * handler (createMcpHandler), on a gateway server made for that request.
 */
import http from "node:http";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport as SessionTransport,
  type JSONRPCMessage,
  type McpHttpHandler,
  type Server as ModernServer,
  type Transport,
} from "@modelcontextprotocol/server";
import { hostPort, type ListenAddress } from "./address.ts";
import { readBody, type Body } from "./body.ts";
import { allowedHosts, checkBearer, checkHost, checkOrigin, type Refusal } from "./guard.ts";
import type { TokenSource } from "./token.ts";

export const MCP_PATH = "/mcp";
/** at most this many client sessions at once: each holds an SDK Server and its state */
export const MAX_SESSIONS = 64;
/** a session with no request or stream open for this long is closed; its id is then unknown (404) */
export const SESSION_IDLE_MS = 30 * 60_000;

/**
 * What one connection may hold (before any token is checked, so anyone who reaches the port can try): at most
 * `maxConnections` at once (more are closed as they come: file descriptors stay bounded), headers within
 * `headersMs` of the connection or the previous request (a client that sends them byte by byte, slowloris, is cut
 * off), a whole request body within `requestMs`, an idle keep-alive connection closed after `keepAliveMs`. A
 * response (an SSE stream, a long call) is not bounded by these.
 */
export interface ConnectionLimits {
  maxConnections: number;
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
  /** how often Node checks the header and request deadlines */
  checkMs: number;
}

export const CONNECTION_LIMITS: ConnectionLimits = { maxConnections: 256, headersMs: 10_000, requestMs: 60_000, keepAliveMs: 5_000, checkMs: 1_000 };

/** The gateway side: serves one client over `transport` until it closes; throws ClientRefused to turn it away. */
export interface ClientHost {
  open(transport: Transport): Promise<void>;
  /** a 2026-07-28 request (no session): the gateway's server for that one request */
  modern?(): Promise<ModernServer>;
  /** list changes and resource updates, for the 2026-07-28 clients' `subscriptions/listen` streams; returns the unsubscribe */
  changes?(listener: (change: Change) => void): () => void;
  /**
   * a listen stream's resourceSubscriptions (as clients know them), subscribed at their servers until released;
   * undefined when none routes to a server (nothing is held)
   */
  holdResources?(uris: readonly string[]): (() => void) | undefined;
}

/** What a 2026-07-28 client's listen stream may be told (the gateway's GatewayChange). */
export type Change = { kind: "lists"; tools: boolean; prompts: boolean; resources: boolean } | { kind: "resource"; uri: string; params: Record<string, unknown> };

/** Thrown by ClientHost.open: the client is told `message` with `status` (e.g. 503 while one client is served). */
export class ClientRefused extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface HttpOptions {
  listen: ListenAddress;
  /** undefined: --allow-unauthenticated */
  token: TokenSource | undefined;
  host: ClientHost;
  log: (line: string) => void;
  maxBodyBytes: number;
  /** default SESSION_IDLE_MS */
  idleMs?: number;
  /** default CONNECTION_LIMITS */
  limits?: Partial<ConnectionLimits>;
}

export interface HttpGateway {
  url: string;
  /** open sessions (for tests and the monitor) */
  sessions: () => number;
  close(): Promise<void>;
}

interface Session {
  transport: SessionTransport;
  /** HTTP requests (and SSE streams) of this session open now */
  open: number;
  idleSince: number;
}

export async function startHttp(options: HttpOptions): Promise<HttpGateway> {
  const sessions = new Map<string, Session>();
  const host = options.host;
  const modern: McpHttpHandler | undefined = host.modern
    ? createMcpHandler(() => host.modern!(), { legacy: "reject", maxRequestBodySize: options.maxBodyBytes })
    : undefined;
  // a 2026-07-28 client hears of changes on its subscriptions/listen stream (served by the SDK handler from its bus)
  const unlisten = modern && host.changes?.((c) => {
    if (c.kind === "resource") return modern.bus.publish({ kind: "resource_updated", uri: c.uri, params: c.params as never });
    if (c.tools) modern.notify.toolsChanged();
    if (c.prompts) modern.notify.promptsChanged();
    if (c.resources) modern.notify.resourcesChanged();
  });
  const opened = new Set<SessionTransport>();
  let hosts = allowedHosts(options.listen);
  const idleMs = options.idleMs ?? SESSION_IDLE_MS;
  const sweep = setInterval(() => {
    for (const s of sessions.values()) if (s.open === 0 && Date.now() - s.idleSince > idleMs) void s.transport.close().catch(() => {});
  }, Math.min(60_000, idleMs));
  sweep.unref();
  const limits = { ...CONNECTION_LIMITS, ...options.limits };
  const server = http.createServer({ connectionsCheckingInterval: limits.checkMs, headersTimeout: limits.headersMs, requestTimeout: limits.requestMs, keepAliveTimeout: limits.keepAliveMs }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      options.log(`http: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) reply(res, 500, "Internal error");
      else res.destroy();
    });
  });
  server.maxConnections = limits.maxConnections;
  let droppedAt = 0;
  server.on("drop", () => {
    if (Date.now() - droppedAt < 60_000) return; // said once a minute at most
    droppedAt = Date.now();
    options.log(`http: more than ${limits.maxConnections} connections at once: new ones are closed until some end`);
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // the guard first: nothing of the request is looked at (its target parsed, an error logged) before it passed
    const refusal = refuse(req);
    if (refusal) return reply(res, refusal.status, refusal.message, refusal.status === 401 ? { "www-authenticate": 'Bearer realm="mcpbox"' } : {});
    const url = targetOf(req);
    if (!url) return reply(res, 400, "Bad Request: the request target is not a URL path");
    if (url.pathname !== MCP_PATH) return reply(res, 404, `Not found: MCP is served at ${MCP_PATH}`);
    if (req.method !== "POST" && req.method !== "GET" && req.method !== "DELETE") return reply(res, 405, "Method not allowed", { allow: "GET, POST, DELETE" });

    const body = req.method === "POST" ? await readBody(req, res, options.maxBodyBytes) : undefined;
    if (body && !body.ok) return reply(res, body.status, body.message, {}, body.code);
    const message = body?.ok ? body.value : undefined;

    const id = header(req, "mcp-session-id");
    if (id !== undefined) {
      const session = sessions.get(id);
      if (!session) return reply(res, 404, "Session not found", {}, -32001);
      session.open++;
      res.once("close", () => {
        session.open--;
        session.idleSince = Date.now();
      });
      return serveRequest(session.transport, req, res, body);
    }
    if (req.method === "POST" && isInitialize(message)) return openSession(req, res, body);
    if (req.method === "POST" && modern && !(await isLegacyRequest(webRequest(req, res, body), message, { maxRequestBodySize: options.maxBodyBytes }))) return serveModern(req, res, body);
    return reply(res, 400, "Bad Request: Mcp-Session-Id header is required", {}, -32000);
  }

  /** 2026-07-28: each request answered by the SDK's per-request handler on a gateway server of its own. */
  async function serveModern(req: http.IncomingMessage, res: http.ServerResponse, body: Body | undefined): Promise<void> {
    // a listen stream that names resources keeps them subscribed at their servers for as long as it is open
    const uris = body?.ok ? listenedResources(body.value) : [];
    const release = uris.length > 0 ? host.holdResources?.(uris) : undefined;
    if (release) res.once("close", release);
    const response = await modern!.fetch(webRequest(req, res, body));
    await writeResponse(response, res);
  }

  function refuse(req: http.IncomingMessage): Refusal | undefined {
    const bad = checkHost(header(req, "host"), hosts) ?? checkOrigin(header(req, "origin"));
    if (bad || !options.token) return bad;
    const token = options.token.current((e) => options.log(`http: every request is refused: ${e.message}; ${e.hint ?? ""}`));
    return token === undefined ? { status: 401, message: "Unauthorized" } : checkBearer(header(req, "authorization"), token);
  }

  async function openSession(req: http.IncomingMessage, res: http.ServerResponse, body: Body | undefined): Promise<void> {
    if (sessions.size >= MAX_SESSIONS) return reply(res, 503, `Service unavailable: ${MAX_SESSIONS} client sessions are open; end one (DELETE) first`);
    const transport: SessionTransport = new SessionTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: options.maxBodyBytes,
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, open: 0, idleSince: Date.now() });
        options.log(`http: client ${sid.slice(0, 8)} connected (${sessions.size} open)`);
      },
    });
    if (!(await attach(transport, res))) return;
    await serveRequest(transport, req, res, body);
    // the transport turned the initialize away (406, 400, ...): no session began, so the gateway's session for it ends
    // now; otherwise every refused initialize would leave one behind, seen by no cap and no idle sweep
    if (transport.sessionId === undefined) await transport.close().catch(() => {});
  }

  /** Hands a new transport to the gateway; false (the client answered) when it is turned away. */
  async function attach(transport: SessionTransport, res: http.ServerResponse): Promise<boolean> {
    transport.onclose = () => {
      opened.delete(transport);
      const sid = transport.sessionId;
      if (sid !== undefined && sessions.delete(sid)) options.log(`http: client ${sid.slice(0, 8)} disconnected (${sessions.size} open)`);
    };
    try {
      await options.host.open(transport as unknown as Transport);
    } catch (e) {
      if (!(e instanceof ClientRefused)) throw e;
      reply(res, e.status, e.message);
      return false;
    }
    opened.add(transport);
    return true;
  }

  async function close(): Promise<void> {
    clearInterval(sweep);
    unlisten?.();
    await modern?.close().catch(() => {});
    const closing = [...opened].map((t) => t.close().catch(() => {}));
    server.closeAllConnections();
    await Promise.all([...closing, new Promise<void>((resolve) => server.close(() => resolve()))]);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.listen.port, options.listen.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (e) => options.log(`http: ${e.message}`));
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts({ ...options.listen, port }); // --http host:0 took a port only now
  return { url: `http://${hostPort(options.listen.host, port)}${MCP_PATH}`, sessions: () => sessions.size, close };
}

/**
 * One request into its transport. A client whose connection closes before its calls were answered cancels them: each
 * request of the body is cancelled as if the client had sent notifications/cancelled, so the gateway cancels the
 * server's call too.
 */
async function serveRequest(transport: SessionTransport, req: http.IncomingMessage, res: http.ServerResponse, body: Body | undefined): Promise<void> {
  const message = body?.ok ? body.value : undefined;
  const ids = requestIds(message);
  if (ids.length > 0) {
    res.once("close", () => {
      if (res.writableFinished) return;
      for (const requestId of ids) {
        const cancel: JSONRPCMessage = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "the client disconnected" } };
        transport.onmessage?.(cancel as never);
      }
    });
  }
  const response = await transport.handleRequest(webRequest(req, res, body), message === undefined ? {} : { parsedBody: message });
  await writeResponse(response, res);
}

/** The request as the web-standard handler takes it; its signal aborts when the client's connection closes early. */
function webRequest(req: http.IncomingMessage, res: http.ServerResponse, body: Body | undefined): Request {
  const abort = new AbortController();
  res.once("close", () => res.writableFinished || abort.abort());
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  const text = body?.ok ? JSON.stringify(body.value) : undefined;
  return new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, { method: req.method, headers, signal: abort.signal, ...(text === undefined ? {} : { body: text }) });
}

/** How long a response may wait for its client to read what was written before the client counts as gone. */
export const STALL_MS = 30_000;

/**
 * A web-standard Response onto the Node response, streamed (SSE), stopped when the client goes. It reads no more while
 * the socket's buffer is full, and a client that reads nothing for `stallMs` is cut off: a stream whose reader stopped
 * (a stalled or hostile client) would otherwise keep every notification a server sends in the gateway's memory.
 */
export async function writeResponse(response: Response, res: http.ServerResponse, stallMs = STALL_MS): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.once("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done) break;
    if (!res.write(value) && !(await drained(res, stallMs))) {
      res.destroy();
      await reader.cancel().catch(() => {});
      return;
    }
  }
  res.end();
}

/** true once the response's buffer drained; false when the client closed or read nothing for `ms`. */
function drained(res: http.ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    res.once("drain", onDrain);
    res.once("close", onClose);
  });
}

function requestIds(message: unknown): (string | number)[] {
  const all = Array.isArray(message) ? message : [message];
  return all.flatMap((m) => {
    const o = m as { id?: unknown; method?: unknown } | null;
    return o && typeof o.method === "string" && (typeof o.id === "string" || typeof o.id === "number") ? [o.id] : [];
  });
}

/** The resource URIs a `subscriptions/listen` request asks updates of (at most 1000). */
function listenedResources(message: unknown): string[] {
  const m = message as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | null;
  const uris = m?.method === "subscriptions/listen" ? m.params?.notifications?.resourceSubscriptions : undefined;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === "string").slice(0, 1000) : [];
}

function isInitialize(message: unknown): boolean {
  return Array.isArray(message) ? message.some((m) => isInitializeRequest(m)) : isInitializeRequest(message);
}

/** The request's target as a URL, or undefined (`http://[`: the parser lets it through, URL does not). */
function targetOf(req: http.IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? "/", "http://local");
  } catch {
    return undefined;
  }
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A JSON-RPC error body with the status (what the SDK transport answers for its own refusals). */
function reply(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = -32000): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}
