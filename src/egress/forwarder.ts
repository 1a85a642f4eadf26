/**
 * The forwarder process (`mcpbox __egress` with role "forward"): it owns the server's network namespace (no network
 * but loopback) and is the only thing listening there. Its HTTP proxy port is passed byte for byte to the proxy's
 * unix socket; each `host:port` entry's listener opens a CONNECT tunnel to that one target first. It decides nothing:
 * the proxy checks every connection, so a forwarder that were fooled would still get only what the allowlist allows.
 */
import net from "node:net";
import type { ForwarderSettings } from "./settings.ts";

const MAX_CONNECTIONS = 256;
const MAX_ANSWER_HEAD = 8192;
const RETRY_MS = 100;
const PROXY_WAIT_MS = 10_000; // the proxy may still be starting when the first connection comes

export async function runForwarder(f: ForwarderSettings): Promise<{ close(): Promise<void>; addresses: net.AddressInfo[] }> {
  const servers = [
    await listen(f.http.listen, f.http.port, (c) => void splice(c, f.socket)),
    ...(await Promise.all(f.tcp.map((t) => listen(t.listen, t.port, (c) => void forward(c, f.socket, `${t.host}:${t.port}`))))),
  ];
  return {
    addresses: servers.map((s) => s.address() as net.AddressInfo),
    close: () => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => {}),
  };
}

function listen(host: string, port: number, onConnection: (c: net.Socket) => void): Promise<net.Server> {
  const s = net.createServer({ pauseOnConnect: true, noDelay: true }, (c) => {
    c.on("error", () => {});
    onConnection(c);
  });
  s.maxConnections = MAX_CONNECTIONS;
  return new Promise((resolve, reject) => s.once("error", reject).listen({ host, port, exclusive: true }, () => resolve(s)));
}

/** A connection to the proxy's socket, retried while the proxy starts. */
async function connectProxy(socket: string): Promise<net.Socket | undefined> {
  const deadline = Date.now() + PROXY_WAIT_MS;
  for (;;) {
    const s = net.connect(socket);
    const ok = await new Promise<boolean>((resolve) => {
      s.once("connect", () => resolve(true));
      s.once("error", () => resolve(false));
    });
    if (ok) return s;
    s.destroy();
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}

async function splice(client: net.Socket, socket: string): Promise<void> {
  const up = await connectProxy(socket);
  if (!up || client.destroyed) return void (client.destroy(), up?.destroy());
  join(client, up);
}

function join(client: net.Socket, up: net.Socket): void {
  up.on("error", () => client.destroy());
  client.on("close", () => up.destroy());
  up.on("close", () => client.destroy());
  client.pipe(up);
  up.pipe(client);
  client.resume();
}

/** A TCP forward: CONNECT to the one target, then the bytes both ways; a refusal closes the connection. */
async function forward(client: net.Socket, socket: string, authority: string): Promise<void> {
  const up = await connectProxy(socket);
  if (!up || client.destroyed) return void (client.destroy(), up?.destroy());
  up.on("error", () => client.destroy());
  up.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end === -1) {
      if (head.length > MAX_ANSWER_HEAD) (up.destroy(), client.destroy());
      return;
    }
    up.off("data", onData);
    up.pause();
    if (!/^HTTP\/1\.[01] 200 /.test(head.subarray(0, end).toString("latin1"))) return void (up.destroy(), client.destroy());
    const rest = head.subarray(end + 4);
    if (rest.length > 0) client.write(rest);
    join(client, up);
    up.resume();
  };
  up.on("data", onData);
  up.on("close", () => client.destroy());
}
