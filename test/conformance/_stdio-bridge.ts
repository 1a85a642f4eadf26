/**
 * A stdio-to-HTTP harness for the conformance tests: the suite's server scenarios need a URL, and this gives one to
 * a stdio server. Each 2025-era HTTP session (the SDK v2 sessionful Streamable HTTP transport) spawns its own child
 * (`dist/mcpbox serve`, or the fixture itself for the baseline) and relays JSON-RPC messages both ways, untouched.
 * Messages the child sends (notifications, server-to-client requests) ride on the HTTP stream of the client request
 * they belong to: a progress notification by its token, everything else by the newest call in flight; a change
 * notification with no call in flight goes to the session's standalone stream. A session the client abandons (the
 * 0.1.16 suite sends no DELETE) is closed after IDLE_MS without a request, so its child and container go at once.
 *
 * A 2026-07-28 request (no session, a per-request `_meta` envelope) goes to one shared child, its id made unique
 * on the way in and restored on the way out; the answer is JSON, or an SSE stream when the child sends something
 * that belongs to the request first (progress by its token, a listen stream's notifications by their subscription
 * id, a log line to the newest call). A client that closes the stream cancels the request. JSON-RPC errors get the
 * HTTP statuses of the Streamable HTTP binding (-32601 404, request errors 400). This harness does not check the
 * 2026 routing headers: the scenarios about them test an HTTP server, which mcpbox over stdio is not.
 * Host and Origin are checked (loopback only) as any local server must.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import readline from "node:readline";
import {
  WebStandardStreamableHTTPServerTransport,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type JSONRPCMessage,
} from "@modelcontextprotocol/server";

export interface BridgeOptions {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface Bridge {
  url: string;
  /** children spawned so far (one per 2025 session, one for all 2026-07-28 requests) */
  spawned: () => number;
  /** the stderr of every child, in order */
  stderr: () => string;
  close: () => Promise<void>;
}

/** A session with no HTTP request and no call in flight for this long is closed (the scenarios never pause so long). */
const IDLE_MS = 3_000;

type Msg = JSONRPCMessage & { id?: string | number; method?: string; params?: Record<string, unknown> };

function spawnChild(options: BridgeOptions, onStderr: (s: string) => void, onLine: (line: string) => void): ChildProcess {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...(process.env as Record<string, string>), ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr!.on("data", (d: Buffer) => onStderr(d.toString()));
  child.stdin!.on("error", () => {});
  readline.createInterface({ input: child.stdout! }).on("line", onLine);
  return child;
}

async function endChild(child: ChildProcess): Promise<void> {
  child.stdin!.end();
  const exited = new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once("exit", () => r())));
  const timer = setTimeout(() => child.kill("SIGTERM"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** One 2025 session: an HTTP transport and the child it relays to. */
class Session {
  readonly http: WebStandardStreamableHTTPServerTransport;
  private readonly child: ChildProcess;
  /** client requests not yet answered, oldest first */
  private readonly inFlight: (string | number)[] = [];
  private readonly byProgressToken = new Map<unknown, string | number>();
  private closed = false;
  private lastActivity = Date.now();
  private readonly idle: NodeJS.Timeout;

  constructor(options: BridgeOptions, sessions: Map<string, Session>, onStderr: (s: string) => void) {
    this.child = spawnChild(options, onStderr, (line) => this.fromChild(line));
    this.child.on("exit", () => void this.close());
    this.http = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, this),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    this.http.onmessage = (message) => this.fromClient(message as Msg);
    this.http.onclose = () => void this.close();
    this.idle = setInterval(() => {
      if (this.inFlight.length === 0 && Date.now() - this.lastActivity > IDLE_MS) void this.close();
    }, 500);
  }

  handle(request: Request): Promise<Response> {
    this.lastActivity = Date.now();
    return this.http.handleRequest(request);
  }

  private fromClient(message: Msg): void {
    if (message.method !== undefined && message.id !== undefined) {
      this.inFlight.push(message.id);
      const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
      if (token !== undefined) this.byProgressToken.set(token, message.id);
    }
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  private fromChild(line: string): void {
    let message: Msg;
    try {
      message = JSON.parse(line) as Msg;
    } catch {
      return; // not a JSON-RPC line: the client would drop it too
    }
    const isResponse = message.method === undefined;
    if (isResponse) {
      const i = this.inFlight.indexOf(message.id!);
      if (i >= 0) this.inFlight.splice(i, 1);
      for (const [token, id] of this.byProgressToken) if (id === message.id) this.byProgressToken.delete(token);
      void this.http.send(message).catch(() => {});
      return;
    }
    const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
    const related = (token !== undefined ? this.byProgressToken.get(token) : undefined) ?? this.inFlight.at(-1);
    const changeNotice = message.method!.endsWith("/list_changed") || message.method === "notifications/resources/updated";
    const options = related !== undefined && !changeNotice ? { relatedRequestId: related } : undefined;
    void this.http.send(message, options).catch(() => {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.idle);
    await endChild(this.child);
    await this.http.close().catch(() => {});
  }
}

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** HTTP statuses of JSON-RPC errors on the 2026-07-28 Streamable HTTP binding. */
const ERROR_STATUS: Record<number, number> = { [-32700]: 400, [-32600]: 400, [-32601]: 404, [-32602]: 400, [-32020]: 400, [-32021]: 400, [-32022]: 400 };

const MODERN_VERSION = "2026-07-28";
/** How long the child may take to answer the pinning server/discover (mcpbox starts its containers first). */
const PIN_MS = 30_000;

/**
 * What the HTTP binding refuses before a 2026-07-28 request reaches a server (a stdio connection would otherwise be
 * re-pinned to 2025 by a request without the envelope): no `_meta` envelope (-32602), an unsupported revision (-32022),
 * a `MCP-Protocol-Version` header that is absent or disagrees with the envelope (-32020). Notifications pass.
 */
function envelopeRefusal(message: Msg, header: string | null): Response | undefined {
  if (message.id === undefined || message.method === undefined) return undefined;
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const version = meta?.["io.modelcontextprotocol/protocolVersion"];
  const refuse = (code: number, text: string, data?: unknown) =>
    Response.json({ jsonrpc: "2.0", id: message.id, error: { code, message: text, ...(data ? { data } : {}) } }, { status: 400 });
  if (!meta || version === undefined || meta["io.modelcontextprotocol/clientCapabilities"] === undefined) {
    return refuse(-32602, "Invalid params: the request has no complete _meta envelope (protocolVersion, clientCapabilities)");
  }
  if (version !== MODERN_VERSION) {
    return refuse(-32022, `Unsupported protocol version: ${String(version)}`, { supported: [MODERN_VERSION], requested: version });
  }
  if (header !== version) return refuse(-32020, "Header mismatch: MCP-Protocol-Version does not match the request's protocolVersion");
  return undefined;
}

interface Exchange {
  clientId: string | number;
  listen: boolean;
  /** settled (answered, or given up) */
  done: boolean;
  /** set once the answer is an SSE stream */
  stream?: ReadableStreamDefaultController<Uint8Array>;
  settle: (r: Response) => void;
}

/** Every 2026-07-28 request, relayed to one shared child (spawned at the first). */
class Modern {
  private child?: ChildProcess;
  private starting?: Promise<void>;
  private next = 1;
  private readonly open = new Map<string, Exchange>();
  private readonly byProgressToken = new Map<unknown, string>();
  private readonly encoder = new TextEncoder();

  private readonly options: BridgeOptions;
  private readonly onStderr: (s: string) => void;
  private readonly onSpawn: () => void;

  constructor(options: BridgeOptions, onStderr: (s: string) => void, onSpawn: () => void) {
    this.options = options;
    this.onStderr = onStderr;
    this.onSpawn = onSpawn;
  }

  async handle(request: Request): Promise<Response> {
    if (request.method !== "POST") return new Response("Method not allowed.", { status: 405, headers: { allow: "POST" } });
    let message: Msg;
    try {
      message = JSON.parse(await request.text()) as Msg;
    } catch {
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }, { status: 400 });
    }
    const refusal = envelopeRefusal(message, request.headers.get("mcp-protocol-version"));
    if (refusal) return refusal;
    try {
      await this.pinned();
    } catch (e) {
      const error = { code: -32603, message: `the stdio server did not take a 2026-07-28 connection: ${(e as Error).message}` };
      return Response.json({ jsonrpc: "2.0", id: message.id ?? null, error }, { status: 502 });
    }
    if (message.id === undefined || message.method === undefined) {
      this.write(message);
      return new Response(null, { status: 202 });
    }
    const id = `bridge-${this.next++}`;
    const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    if (token !== undefined) this.byProgressToken.set(token, id);
    const answer = new Promise<Response>((settle) => {
      this.open.set(id, { clientId: message.id!, listen: message.method === "subscriptions/listen", settle, done: false });
    });
    request.signal.addEventListener("abort", () => {
      const exchange = this.open.get(id);
      if (!exchange) return;
      this.finish(id);
      this.write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the client closed the stream" } } as Msg);
    });
    this.write({ ...message, id });
    return answer;
  }

  /**
   * The child, its connection pinned to 2026-07-28 by a `server/discover` of ours before any client message; refused
   * (and every later request with it) when the answer is not a 2026-07-28 discover result within PIN_MS.
   */
  private pinned(): Promise<void> {
    this.starting ??= new Promise<void>((resolve, reject) => {
      this.child = spawnChild(this.options, this.onStderr, (line) => this.fromChild(line));
      this.onSpawn();
      const id = `bridge-${this.next++}`;
      const timer = setTimeout(() => {
        this.open.delete(id);
        reject(new Error(`no answer to server/discover in ${PIN_MS} ms`));
      }, PIN_MS);
      const settle = (r: Response) => {
        clearTimeout(timer);
        void r.json().then((answer: unknown) => {
          const body = answer as { result?: { supportedVersions?: string[] }; error?: { message?: string } };
          if (body.result?.supportedVersions?.includes(MODERN_VERSION)) resolve();
          else reject(new Error(`server/discover answered ${JSON.stringify(body.error ?? body.result).slice(0, 200)}`));
        }, reject);
      };
      this.open.set(id, { clientId: id, listen: false, settle, done: false });
      this.write({
        jsonrpc: "2.0",
        id,
        method: "server/discover",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN_VERSION, "io.modelcontextprotocol/clientCapabilities": {} } },
      } as Msg);
    });
    return this.starting;
  }

  private write(message: Msg): void {
    this.child!.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  private fromChild(line: string): void {
    let message: Msg;
    try {
      message = JSON.parse(line) as Msg;
    } catch {
      return;
    }
    if (message.method === undefined) {
      const exchange = this.open.get(String(message.id));
      if (!exchange) return;
      const out = { ...message, id: exchange.clientId };
      if (exchange.stream) this.frame(exchange, out);
      else {
        const code = (message as { error?: { code?: number } }).error?.code;
        exchange.done = true;
        exchange.settle(Response.json(out, { status: code === undefined ? 200 : (ERROR_STATUS[code] ?? 200) }));
      }
      this.finish(String(message.id));
      return;
    }
    const params = (message.params ?? {}) as { progressToken?: unknown; _meta?: Record<string, unknown> };
    const subscription = params._meta?.[SUBSCRIPTION_ID];
    let target: string | undefined;
    if (subscription !== undefined) target = String(subscription);
    else if (params.progressToken !== undefined) target = this.byProgressToken.get(params.progressToken);
    else target = [...this.open].reverse().find(([, e]) => !e.listen)?.[0];
    const exchange = target === undefined ? undefined : this.open.get(target);
    if (!exchange) return; // nobody to tell: a 2026 server's notification belongs to a request
    if (subscription !== undefined) {
      message = { ...message, params: { ...params, _meta: { ...params._meta, [SUBSCRIPTION_ID]: exchange.clientId } } } as Msg;
    }
    if (!exchange.stream) {
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (exchange.stream = c) });
      exchange.settle(new Response(body, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } }));
    }
    this.frame(exchange, message);
  }

  private frame(exchange: Exchange, message: unknown): void {
    try {
      exchange.stream!.enqueue(this.encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
    } catch {
      // the client went away
    }
  }

  private finish(id: string): void {
    const exchange = this.open.get(id);
    if (!exchange) return;
    this.open.delete(id);
    for (const [token, owner] of this.byProgressToken) if (owner === id) this.byProgressToken.delete(token);
    if (exchange.stream) {
      try {
        exchange.stream.close();
      } catch {
        // already closed
      }
    } else if (!exchange.done) {
      exchange.done = true;
      exchange.settle(new Response(null, { status: 499 }));
    }
  }

  async close(): Promise<void> {
    for (const id of [...this.open.keys()]) this.finish(id);
    if (this.child) await endChild(this.child);
  }
}

/** Starts the harness on 127.0.0.1 (a free port). */
export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const sessions = new Map<string, Session>();
  const all = new Set<Session>();
  let stderr = "";
  let spawned = 0;
  const hosts = localhostAllowedHostnames();
  const origins = localhostAllowedOrigins();
  const modern = new Modern(options, (s) => (stderr += s), () => spawned++);

  async function route(request: Request): Promise<Response> {
    const refusal = hostHeaderValidationResponse(request, hosts) ?? originValidationResponse(request, origins);
    if (refusal) return refusal;
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const session = sessions.get(id);
      return session ? session.handle(request) : new Response("Session not found", { status: 404 });
    }
    if (request.method !== "POST" || !(await isLegacyRequest(request.clone()))) return modern.handle(request);
    const session = new Session(options, sessions, (s) => (stderr += s));
    spawned++;
    all.add(session);
    return session.handle(request);
  }

  const server: Server = createServer((req, res) => void relay(req, res, route));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    spawned: () => spawned,
    stderr: () => stderr,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await Promise.all([...[...all].map((s) => s.close()), modern.close()]);
    },
  };
}

/** node:http to a web-standard handler and back, the body streamed (SSE responses stay open). */
export async function relay(req: IncomingMessage, res: ServerResponse, handle: (r: Request) => Promise<Response>): Promise<void> {
  try {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const hasBody = chunks.length > 0 && req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, {
      method: req.method ?? "GET",
      headers,
      body: hasBody ? Buffer.concat(chunks) : undefined,
      signal: abort.signal,
    });
    const response = await handle(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    abort.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch (e) {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(e));
  }
}
