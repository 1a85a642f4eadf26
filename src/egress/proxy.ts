/**
 * The egress proxy process (`mcpbox __egress` with role "proxy", in its own hardened container). One unix socket per
 * server, shared only with that server's forwarder; on it an HTTP proxy: CONNECT tunnels (TLS passes through, never
 * intercepted; TCP forwards use it too) and absolute-form plain HTTP requests. Each connection is decided by the name
 * asked for (decide.ts), connected to the checked address only, and reported as one JSON line on stdout (record.ts).
 * Once the forwarder has handed it its listeners (handoff.ts), the server's connections come to the proxy directly:
 * a CONNECT the list names is then answered at once (what the forwarder did before, see forwarder.ts), and a
 * `host:port` entry's listener is a tunnel to that one target with no head at all.
 */
import dns from "node:dns/promises";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { parseAllowlist, type EgressRule } from "./allowlist.ts";
import { connectTarget, decide, likelyAllowed, type Verdict } from "./decide.ts";
import { takeListeners, type Handed } from "./handoff.ts";
import { formatRecord, type EgressRecord } from "./record.ts";
import type { ProxySettings } from "./settings.ts";

const MAX_CONNECTIONS = 256; // per server: a server opening sockets in a loop stops here, not at the proxy's memory
/** per server, tunnels and plain requests at once: one connection may pipeline many requests, each its own upstream */
export const MAX_UPSTREAM = 256;
const CONNECT_TIMEOUT_MS = 10_000;
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"];

export interface RunningProxy {
  close(): Promise<void>;
}

const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";

export async function runProxy(settings: ProxySettings, emit: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<RunningProxy> {
  const gateways = [...(settings.gateways ?? []), ...defaultGateways()];
  const servers = await Promise.all(
    settings.listeners.map((l) => listen(l.socket, l.server, parseAllowlist(l.allow).rules, gateways, emit)),
  );
  return { close: () => Promise.all(servers.map((close) => close())).then(() => {}) };
}

/** One server's listener; resolves to what closes it, its connections and the listeners the forwarder handed over. */
async function listen(socket: string, server: string, rules: EgressRule[], gateways: string[], emit: (l: string) => void): Promise<() => Promise<void>> {
  const ctx: Ctx = { server, emit, rules, decide: (host, port) => decide(host, port, { rules, gateways, resolve }), active: 0 };
  const direct = new WeakSet<net.Socket>(); // accepted on a handed listener: no forwarder answered the CONNECT
  const s = http.createServer({ requestTimeout: 0 }, (req, res) => void plainHttp(ctx, req, res));
  s.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => void tunnel(ctx, req.url, client, head, direct.has(client) ? "early" : "proxy"));
  s.on("clientError", (_e, sock: net.Socket) => sock.destroy());
  s.maxConnections = MAX_CONNECTIONS;
  // idle connections too (the forwarder keeps some open ahead) and tunnels, which the http server no longer tracks
  const open = new Set<net.Socket>();
  const track = (c: net.Socket) => (open.add(c), c.once("close", () => open.delete(c)));
  s.on("connection", track);
  const handed: net.Server[] = [];
  const onHanded = (what: Handed, handle: object) => {
    // half-open as the http server's own sockets are: a client's FIN ends the way up only, the answer still comes down
    const l = net.createServer({ noDelay: true, allowHalfOpen: true }, what.listener === "http"
      ? (c) => (direct.add(c), s.emit("connection", c))
      : (c) => (track(c), void tunnel(ctx, `${what.host}:${what.port}`, c, Buffer.alloc(0), "raw")));
    l.maxConnections = MAX_CONNECTIONS;
    l.on("error", () => {});
    l.listen(handle as net.ListenOptions);
    handed.push(l);
  };
  // the volume's folder is made 0755 by the image's COPY: ours alone (uid 1000, the forwarder's too) before the socket is
  fs.chmodSync(path.dirname(socket), 0o700);
  fs.rmSync(socket, { force: true });
  await new Promise<void>((resolve, reject) => s.once("error", reject).listen(socket, () => resolve()));
  fs.chmodSync(socket, 0o600);
  const taking = takeListeners(socket, onHanded);
  return () => new Promise<void>((r) => {
    taking.close();
    for (const l of handed) l.close();
    s.close(() => r());
    for (const c of open) c.destroy();
  });
}

interface Ctx {
  server: string;
  emit: (line: string) => void;
  rules: readonly EgressRule[];
  decide: (host: string, port: number) => Promise<Verdict>;
  /** upstream connections open or being decided (bounded by MAX_UPSTREAM) */
  active: number;
}

const BUSY = `too many connections at once (${MAX_UPSTREAM})`;

/** One slot of ctx.active, given back once; undefined when all are taken. */
function slot(ctx: Ctx): (() => void) | undefined {
  if (ctx.active >= MAX_UPSTREAM) return undefined;
  ctx.active++;
  let given = false;
  return () => {
    if (!given) (given = true), ctx.active--;
  };
}

async function resolve(host: string): Promise<string[]> {
  const found = await dns.lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

function record(ctx: Ctx, r: Omit<EgressRecord, "server" | "time" | "durationMs">, started: number): void {
  ctx.emit(formatRecord({ time: new Date(started).toISOString(), server: ctx.server, ...r, durationMs: Date.now() - started }));
}

/**
 * How a tunnel talks to its client: "proxy" answers 200/403/502 (a forwarder took the CONNECT and answered at once,
 * or none did and the list does not name it); "early" answers 200 at once when the list names the target (the
 * client's next bytes wait here, nothing goes upstream before the verdict; a refusal then closes the connection);
 * "raw" (a `host:port` forward) says nothing, a refusal closes.
 */
type Answer = "proxy" | "early" | "raw";

async function tunnel(ctx: Ctx, authority: string | undefined, client: net.Socket, head: Buffer, answer: Answer): Promise<void> {
  const started = Date.now();
  const t = connectTarget(authority);
  client.on("error", () => {});
  const asked = t ?? { host: shown(authority), port: 0 };
  const early = answer === "early" && t !== undefined && likelyAllowed(ctx.rules, t.host, t.port);
  if (early) client.write(ESTABLISHED);
  const speaks = answer !== "raw" && !early; // whether the outcome is still to be told in HTTP
  const release = slot(ctx);
  const verdict = !release ? ({ ok: false, reason: BUSY } as const) : t ? await ctx.decide(t.host, t.port) : ({ ok: false, reason: "not host:port" } as const);
  if (!verdict.ok || client.destroyed) {
    release?.();
    if (!verdict.ok && speaks) client.end(refusal(ctx.server, `${asked.host}:${asked.port}`, verdict.reason, release ? 403 : 503));
    else closeQuietly(client);
    const reason = verdict.ok ? "the client closed before the connection was made" : verdict.reason;
    record(ctx, { host: asked.host, port: asked.port, outcome: verdict.ok ? "ok" : "denied", reason, bytesUp: 0, bytesDown: 0, via: "connect" }, started);
    return;
  }
  const upstream = net.connect({ host: verdict.address, port: asked.port, timeout: CONNECT_TIMEOUT_MS, noDelay: true });
  let failure: string | undefined;
  let connected = false;
  upstream.once("connect", () => {
    connected = true;
    upstream.setTimeout(0);
    if (speaks) client.write(ESTABLISHED);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.once("timeout", () => upstream.destroy(new Error("connect timed out")));
  upstream.on("error", (e) => {
    failure ??= e.message;
    if (!connected && speaks) client.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
    else if (!connected) closeQuietly(client);
    else client.destroy();
  });
  client.on("close", () => (client.readableEnded && connected ? upstream.end() : upstream.destroy()));
  upstream.once("close", () => {
    release?.();
    if (connected) upstream.readableEnded ? client.end() : client.destroy(); // a clean end keeps the queued bytes
    const r = { host: asked.host, port: asked.port, outcome: "ok" as const, bytesUp: upstream.bytesWritten, bytesDown: upstream.bytesRead, via: "connect" as const };
    record(ctx, failure ? { ...r, reason: failure } : r, started);
  });
}

/**
 * A tunnel refused after its client was told 200 (or a raw forward): closed with a FIN, what it sent meanwhile read
 * and dropped (destroying a socket with unread bytes answers RST); destroyed if it does not close within a second.
 */
function closeQuietly(client: net.Socket): void {
  if (client.destroyed) return;
  client.resume();
  client.end();
  setTimeout(() => client.destroy(), 1000).unref();
}

async function plainHttp(ctx: Ctx, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const started = Date.now();
  let url: URL | undefined;
  try {
    url = new URL(req.url ?? "");
  } catch {}
  if (!url || url.protocol !== "http:") {
    res.writeHead(400, { "content-type": "text/plain" }).end("mcpbox egress: only absolute http:// URLs (and CONNECT) go through this proxy\n");
    return;
  }
  const port = url.port === "" ? 80 : Number(url.port);
  const release = slot(ctx);
  const verdict = release ? await ctx.decide(url.hostname, port) : ({ ok: false, reason: BUSY } as const);
  if (!verdict.ok) {
    release?.();
    res.writeHead(release ? 403 : 503, { "content-type": "text/plain", "x-mcpbox-egress": "denied" }).end(`mcpbox egress: ${url.hostname}:${port} is not allowed for server ${ctx.server}: ${verdict.reason}\n`);
    record(ctx, { host: url.hostname, port, outcome: "denied", reason: verdict.reason, bytesUp: 0, bytesDown: 0, via: "http" }, started);
    return;
  }
  const headers: http.OutgoingHttpHeaders = { ...req.headers, host: url.host }; // the checked name, not another on that address
  for (const h of HOP_BY_HOP) delete headers[h];
  // a body sent chunked goes on chunked: without framing, a GET's body would reach the host as a request of its own
  if (req.headers["transfer-encoding"] !== undefined && req.headers["content-length"] === undefined) headers["transfer-encoding"] = "chunked";
  const up = http.request({ host: verdict.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, agent: false, setHost: false, timeout: CONNECT_TIMEOUT_MS });
  let socket: net.Socket | undefined;
  let failure: string | undefined;
  up.on("socket", (s) => (socket = s));
  up.on("response", (answer) => {
    up.setTimeout(0);
    const out = { ...answer.headers };
    for (const h of HOP_BY_HOP) delete out[h];
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
    answer.pipe(res);
  });
  up.on("timeout", () => up.destroy(new Error("timed out")));
  up.on("error", (e) => {
    failure ??= e.message;
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(`mcpbox egress: ${url.hostname}:${port} failed: ${e.message}\n`);
    else res.destroy();
  });
  req.pipe(up);
  res.on("close", () => {
    release?.();
    up.destroy();
    const r = { host: url.hostname, port, outcome: "ok" as const, bytesUp: socket?.bytesWritten ?? 0, bytesDown: socket?.bytesRead ?? 0, via: "http" as const };
    record(ctx, failure ? { ...r, reason: failure } : r, started);
  });
}

function refusal(server: string, what: string, reason: string, status: 403 | 503 = 403): string {
  const body = `mcpbox egress: ${what} is not allowed for server ${server}: ${reason}\n`;
  return `HTTP/1.1 ${status} ${status === 403 ? "Forbidden" : "Service Unavailable"}\r\ncontent-type: text/plain\r\nx-mcpbox-egress: denied\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

const shown = (s: string | undefined) => (s ?? "").replace(/[^\x21-\x7e]/g, "?").slice(0, 255);

/** The default gateways of this container's routes (/proc/net/route): the host answers there. */
export function defaultGateways(routes = readRoutes()): string[] {
  const out: string[] = [];
  for (const line of routes.split("\n").slice(1)) {
    const gw = line.trim().split(/\s+/)[2];
    if (!gw || !/^[0-9A-F]{8}$/i.test(gw) || gw === "00000000") continue;
    const n = parseInt(gw, 16); // little-endian
    out.push([n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >>> 24) & 255].join("."));
  }
  return [...new Set(out)];
}

function readRoutes(): string {
  try {
    return fs.readFileSync("/proc/net/route", "utf8");
  } catch {
    return "";
  }
}
