/**
 * The forwarder process (`mcpbox __egress` with role "forward"): it owns the server's network namespace (no network
 * but loopback) and is the only thing listening there. Its HTTP proxy port is passed byte for byte to the proxy's
 * unix socket; each `host:port` entry's listener opens a CONNECT tunnel to that one target first. It decides nothing:
 * the proxy checks every connection, so a forwarder that were fooled would still get only what the allowlist allows.
 *
 * Normally it copies nothing: once the proxy has started, its listeners are handed to the proxy (handoff.ts), which
 * then accepts the server's connections itself (one process on the way, not two) and the forwarder closes its copies.
 * Until then (or if a handoff fails), it serves them as below.
 *
 * Two things keep a fresh connection's first byte close to a direct one's (scripts/bench/egress.mjs):
 *   - a few connections to the proxy's socket are opened ahead, so a client's bytes go on at once;
 *   - a CONNECT whose host and port the allowlist names is answered "200" here at once, while the proxy decides
 *     (name, resolution, every address, then its connection upstream). The client's next bytes (a TLS ClientHello)
 *     wait in the proxy, which writes nothing upstream before its verdict; when it refuses, the client's connection is
 *     closed instead of answered 403 (the audit line says why). A CONNECT the list does not name gets the proxy's 403.
 */
import net from "node:net";
import { parseAllowlist, type EgressRule } from "./allowlist.ts";
import { connectTarget, likelyAllowed } from "./decide.ts";
import { offerListeners, type Handed } from "./handoff.ts";
import type { ForwarderSettings } from "./settings.ts";

const MAX_CONNECTIONS = 256;
const MAX_HEAD = 8192; // a request or answer head longer than this is passed on untouched (the proxy answers it)
const RETRY_MS = 100;
const PROXY_WAIT_MS = 10_000; // the proxy may still be starting when the first connection comes
const SPARE = 2; // connections to the proxy opened ahead
const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";
/** how long "ready" waits for the proxy to take the listeners (it starts at the same time); then copying serves */
const HANDOFF_WAIT_MS = 10_000;

export interface ForwarderOptions {
  /** hand the listeners to the proxy (default); false keeps every connection on the copying path (tests) */
  handoff?: boolean;
}

export async function runForwarder(f: ForwarderSettings, o: ForwarderOptions = {}): Promise<{ close(): Promise<void>; addresses: net.AddressInfo[]; handedOver(): boolean }> {
  const pool = proxyPool(f.socket);
  const rules = parseAllowlist(f.allow ?? []).rules;
  const servers = [
    await listen(f.http.listen, f.http.port, (c) => proxyPort(c, pool, rules)),
    ...(await Promise.all(f.tcp.map((t) => listen(t.listen, t.port, (c) => void forward(c, pool, `${t.host}:${t.port}`))))),
  ];
  const addresses = servers.map((s) => s.address() as net.AddressInfo);
  let handed = false;
  let offer: ReturnType<typeof offerListeners> | undefined;
  if (o.handoff !== false) {
    const what: Handed[] = [{ listener: "http" }, ...f.tcp.map((t) => ({ listener: "tcp" as const, host: t.host, port: t.port }))];
    // the proxy holds listener i now: this copy closes (the socket listens on in the proxy, its queue included)
    offer = offerListeners(f.socket, servers.map((server, i) => ({ server, what: what[i]! })), (i) => servers[i]!.close());
    const timer = new Promise<boolean>((r) => setTimeout(() => r(false), HANDOFF_WAIT_MS).unref());
    void offer.done.then((ok) => ok && ((handed = true), pool.close()));
    await Promise.race([offer.done, timer]);
  }
  // once the proxy holds every listener nothing here keeps the event loop alive, but this process owns the namespace
  const alive = setInterval(() => {}, 2 ** 30);
  return {
    addresses,
    handedOver: () => handed,
    close: () => {
      clearInterval(alive);
      offer?.close();
      pool.close();
      return Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => {});
    },
  };
}

function listen(host: string, port: number, onConnection: (c: net.Socket) => void): Promise<net.Server> {
  // half-open: a client that ends its request (FIN) still gets the answer (the proxy keeps the same semantics)
  const s = net.createServer({ pauseOnConnect: true, noDelay: true, allowHalfOpen: true }, (c) => {
    c.on("error", () => {});
    onConnection(c);
  });
  s.maxConnections = MAX_CONNECTIONS;
  return new Promise((resolve, reject) => s.once("error", reject).listen({ host, port, exclusive: true }, () => resolve(s)));
}

interface ProxyPool {
  /** a connection to the proxy's socket: an open spare, or a new one (retried while the proxy starts) */
  take(): Promise<net.Socket | undefined>;
  close(): void;
}

/** Keeps SPARE idle connections to the proxy's socket (the proxy reads nothing from one until it is used). */
function proxyPool(socket: string): ProxyPool {
  const spare: net.Socket[] = [];
  let filling = false;
  let closed = false;
  const drop = (s: net.Socket) => {
    const i = spare.indexOf(s);
    if (i !== -1) spare.splice(i, 1);
  };
  const fill = async () => {
    if (filling || closed) return;
    filling = true;
    try {
      while (!closed && spare.length < SPARE) {
        const s = await connectOnce(socket);
        if (!s) {
          await new Promise((r) => setTimeout(r, RETRY_MS * 10).unref());
          continue;
        }
        if (closed) return void s.destroy();
        s.on("error", () => {});
        s.once("close", () => {
          drop(s);
          void fill();
        });
        spare.push(s);
      }
    } finally {
      filling = false;
    }
  };
  void fill();
  return {
    async take() {
      const s = spare.shift();
      void fill();
      if (s && !s.destroyed) {
        s.removeAllListeners("close");
        return s;
      }
      return connectProxy(socket);
    },
    close() {
      closed = true;
      for (const s of spare.splice(0)) s.destroy();
    },
  };
}

function connectOnce(socket: string): Promise<net.Socket | undefined> {
  const s = net.connect(socket);
  return new Promise((resolve) => {
    s.once("connect", () => resolve(s));
    s.once("error", () => (s.destroy(), resolve(undefined)));
  });
}

/** A connection to the proxy's socket, retried while the proxy starts. */
async function connectProxy(socket: string): Promise<net.Socket | undefined> {
  const deadline = Date.now() + PROXY_WAIT_MS;
  for (;;) {
    const s = await connectOnce(socket);
    if (s) return s;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}

/**
 * The HTTP proxy port: the first request head is read (bounded) to see whether it is a CONNECT the allowlist names;
 * that one is answered at once and the proxy's own answer taken out of the stream. Everything else is spliced as is.
 */
function proxyPort(client: net.Socket, pool: ProxyPool, rules: readonly EgressRule[]): void {
  const up = pool.take();
  let head = Buffer.alloc(0);
  let handed = false;
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end === -1 && head.length <= MAX_HEAD) return;
    handed = true;
    client.off("data", onData);
    client.pause();
    const early = end !== -1 && answersAtOnce(head.subarray(0, end), rules);
    if (early) client.write(ESTABLISHED);
    void up.then((u) => {
      if (!u || client.destroyed) return void (client.destroy(), u?.destroy());
      u.write(head);
      if (early) afterAnswer(u, client);
      else join(client, u);
    });
  };
  client.on("data", onData);
  client.once("close", () => !handed && void up.then((u) => u?.destroy()));
  client.once("end", () => !handed && client.destroy()); // half-open: a FIN before a whole head ends it here
  client.resume();
}

/** A CONNECT the rules name by its host and port (the proxy still decides it). */
function answersAtOnce(head: Buffer, rules: readonly EgressRule[]): boolean {
  const line = /^CONNECT (\S+) HTTP\/1\.[01]\r\n/.exec(head.toString("latin1"));
  const t = line ? connectTarget(line[1]) : undefined;
  return t !== undefined && likelyAllowed(rules, t.host, t.port);
}

/**
 * When one side closes, the other is ended after what is still queued for it (a clean end) or destroyed (an abort):
 * destroying it at once would drop the last bytes of a download still in its buffer.
 */
export function closeWith(a: net.Socket, b: net.Socket): void {
  const after = (from: net.Socket, to: net.Socket) => () => (from.readableEnded ? to.end() : to.destroy());
  a.once("close", after(a, b));
  b.once("close", after(b, a));
}

function join(client: net.Socket, up: net.Socket): void {
  up.on("error", () => client.destroy());
  closeWith(client, up);
  client.pipe(up);
  up.pipe(client);
  client.resume();
}

/**
 * The client already has its "200": the client's bytes go on to the proxy (which holds them until its verdict); the
 * proxy's answer head is read off and, unless it is a 200, the client's connection is closed.
 */
function afterAnswer(up: net.Socket, client: net.Socket): void {
  up.on("error", () => client.destroy());
  closeWith(client, up);
  client.pipe(up);
  client.resume();
  let answer = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    answer = Buffer.concat([answer, chunk]);
    const end = answer.indexOf("\r\n\r\n");
    if (end === -1) {
      if (answer.length > MAX_HEAD) (up.destroy(), client.destroy());
      return;
    }
    up.off("data", onData);
    up.pause();
    if (!/^HTTP\/1\.[01] 200 /.test(answer.subarray(0, end).toString("latin1"))) return void (up.destroy(), client.destroy());
    const rest = answer.subarray(end + 4);
    if (rest.length > 0) client.write(rest);
    up.pipe(client);
  };
  up.on("data", onData);
}

/** A TCP forward: CONNECT to the one target, the client's bytes right behind it; a refusal closes the connection. */
async function forward(client: net.Socket, pool: ProxyPool, authority: string): Promise<void> {
  const up = await pool.take();
  if (!up || client.destroyed) return void (client.destroy(), up?.destroy());
  up.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  afterAnswer(up, client);
}
