// The proxy and the forwarder in one process, against loopback services this test starts (the real engine is in
// test/egress.test.ts): tunnels, plain HTTP, TCP forwards, refusals and the records they leave.
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runForwarder } from "./forwarder.ts";
import { MAX_UPSTREAM, runProxy } from "./proxy.ts";
import { parseRecord, type EgressRecord } from "./record.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-egress-"));
const socket = path.join(dir, "s.sock");
const records: EgressRecord[] = [];
const closers: Array<() => Promise<void> | void> = [];
let echoPort = 0;
let afterEndPort = 0; // answers once the client has half-closed (FIN): what a client's half-close must still get
let echo2Port = 0; // listed by name only: localhost resolves to loopback, which no entry names for this port
let webPort = 0;
let proxyPort = 0;
let tcpPort = 0;
let deniedTcpPort = 0;
let copyPort = 0; // a forwarder that keeps its listeners (copies bytes to the proxy's socket, as before a handoff)
let copyTcpPort = 0;
let handedOver = false;
let upPort = 0; // records each request; /hold waits until released, /body echoes the body, /redirect answers 302
const seen: string[] = [];
const held: Array<() => void> = [];
let holding = 0;
let maxHolding = 0;

const listening = (s: net.Server) => new Promise<number>((r) => s.listen(0, "127.0.0.1", () => r((s.address() as net.AddressInfo).port)));
const waitFor = async (pred: () => boolean, ms = 2000) => {
  for (let i = 0; i < ms / 10 && !pred(); i++) await new Promise((r) => setTimeout(r, 10));
};

beforeAll(async () => {
  const echo = net.createServer((c) => c.pipe(c));
  const web = http.createServer((req, res) => res.end(`hello ${req.url} host=${req.headers.host}`));
  echoPort = await listening(echo);
  const echo2 = net.createServer((c) => c.pipe(c));
  echo2Port = await listening(echo2);
  const afterEnd = net.createServer({ allowHalfOpen: true }, (c) => {
    let got = "";
    c.on("data", (d) => (got += d));
    c.on("end", () => setTimeout(() => c.end(got.toUpperCase()), 50));
  });
  afterEndPort = await listening(afterEnd);
  closers.push(() => void afterEnd.close());
  closers.push(() => void echo2.close());
  webPort = await listening(web);
  closers.push(() => void echo.close(), () => void web.close());
  const up = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      seen.push(`${req.method} ${req.url} ${JSON.stringify(body)}`);
      if (req.url === "/hold") {
        maxHolding = Math.max(maxHolding, ++holding);
        return void held.push(() => (holding--, res.end("held")));
      }
      if (req.url === "/redirect") return void res.writeHead(302, { location: `http://127.0.0.1:${upPort}/followed` }).end();
      res.end(`body=${body}`);
    });
  });
  upPort = await listening(up);
  closers.push(() => {
    for (const r of held.splice(0)) r();
    up.closeAllConnections();
    up.close();
  });
  const allow = [`127.0.0.1/32:${afterEndPort}`, `127.0.0.1/32:${echoPort}`, `127.0.0.1:${webPort}`, `localhost:${echo2Port}`, `127.0.0.1/32:${upPort}`];
  const proxy = await runProxy(
    { role: "proxy", listeners: [{ server: "files", socket, allow }] },
    (line) => {
      const r = parseRecord(line);
      if (r) records.push(r);
    },
  );
  const fwd = await runForwarder({
    role: "forward",
    socket,
    http: { listen: "127.0.0.1", port: 0 },
    allow,
    tcp: [
      { listen: "127.0.1.1", port: echoPort, host: "127.0.0.1" },
      { listen: "127.0.1.2", port: echo2Port, host: "localhost" },
    ],
  });
  [proxyPort, tcpPort, deniedTcpPort] = fwd.addresses.map((a) => a.port) as [number, number, number];
  handedOver = fwd.handedOver();
  const copying = await runForwarder({
    role: "forward",
    socket,
    http: { listen: "127.0.0.1", port: 0 },
    allow,
    tcp: [{ listen: "127.0.1.3", port: echoPort, host: "127.0.0.1" }],
  }, { handoff: false });
  [copyPort, copyTcpPort] = copying.addresses.map((a) => a.port) as [number, number];
  closers.push(() => copying.close(), () => fwd.close(), () => proxy.close());
});

afterAll(async () => {
  for (const c of closers.reverse()) await c();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** CONNECT through the forwarder's proxy port; the status line and whatever the tunnel echoes back. */
function connect(authority: string, payload: string, port = proxyPort): Promise<{ status: string; echoed: string }> {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, "127.0.0.1");
    let data = "";
    c.on("connect", () => c.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    c.on("data", (d) => {
      data += d.toString();
      const end = data.indexOf("\r\n\r\n");
      if (end !== -1 && data.startsWith("HTTP/1.1 200") && data.length === end + 4) c.write(payload);
      if (end !== -1 && data.slice(end + 4) === payload) c.end();
    });
    c.on("close", () => {
      const end = data.indexOf("\r\n\r\n");
      resolve({ status: data.split("\r\n")[0]!, echoed: end === -1 ? "" : data.slice(end + 4) });
    });
    c.on("error", reject);
  });
}

function tcp(port: number, address: string, payload: string): Promise<string> {
  return new Promise((resolve) => {
    const c = net.connect(port, address, () => c.write(payload));
    let data = "";
    c.on("data", (d) => {
      data += d.toString();
      if (data === payload) c.end();
    });
    c.on("error", () => {});
    c.on("close", () => resolve(data));
  });
}

describe("egress proxy and forwarder", () => {
  it("hands the forwarder's listeners to the proxy, which then takes the server's connections itself", () => {
    expect(handedOver).toBe(true);
  });

  it("tunnels an allowed CONNECT and records bytes each way", async () => {
    const r = await connect(`127.0.0.1:${echoPort}`, "ping-1234");
    expect(r).toEqual({ status: "HTTP/1.1 200 Connection Established", echoed: "ping-1234" });
    await waitFor(() => records.some((x) => x.port === echoPort && x.outcome === "ok"));
    expect(records.find((x) => x.port === echoPort && x.outcome === "ok")).toMatchObject({
      server: "files", host: "127.0.0.1", bytesUp: 9, bytesDown: 9, via: "connect",
    });
  });

  it("keeps a half-closed tunnel open the other way: the answer after the client's FIN arrives, then the record", async () => {
    for (const port of [proxyPort, copyPort]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const c = net.connect(port, "127.0.0.1");
        let data = "";
        c.on("connect", () => c.write(`CONNECT 127.0.0.1:${afterEndPort} HTTP/1.1\r\nHost: x\r\n\r\n`));
        c.on("data", (d) => {
          data += d.toString();
          if (data === "HTTP/1.1 200 Connection Established\r\n\r\n") c.end("half-closed");
        });
        c.on("close", () => resolve(data.slice(data.indexOf("\r\n\r\n") + 4)));
        c.on("error", reject);
      });
      expect(answer).toBe("HALF-CLOSED");
    }
    await waitFor(() => records.filter((x) => x.port === afterEndPort).length >= 2);
    expect(records.filter((x) => x.port === afterEndPort)).toMatchObject([{ outcome: "ok", bytesUp: 11, bytesDown: 11 }, { outcome: "ok", bytesUp: 11, bytesDown: 11 }]);
  });

  it("refuses a listed name that resolves to loopback (not named), and an unlisted port", async () => {
    // the name is listed: the forwarder answered at once, the proxy refused after resolving it, the tunnel closed
    expect(await connect(`localhost:${echo2Port}`, "x")).toEqual({ status: "HTTP/1.1 200 Connection Established", echoed: "" });
    expect((await connect(`127.0.0.1:${webPort + 1}`, "x")).status).toBe("HTTP/1.1 403 Forbidden");
    await waitFor(() => records.filter((x) => x.outcome === "denied").length >= 2);
    expect(records.find((x) => x.host === "localhost")).toMatchObject({ outcome: "denied", reason: /loopback.*unless an entry names/ });
  });

  it("proxies plain HTTP for an allowed address and refuses others with 403", async () => {
    const get = (url: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        http.get({ host: "127.0.0.1", port: proxyPort, path: url, headers: { host: new URL(url).host } }, (res) => {
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        }).on("error", reject);
      });
    expect(await get(`http://127.0.0.1:${webPort}/a?b=1`)).toEqual({ status: 200, body: `hello /a?b=1 host=127.0.0.1:${webPort}` });
    const refused = await get(`http://127.0.0.2:${webPort}/`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/not allowed for server files/);
    await waitFor(() => records.some((x) => x.via === "http" && x.outcome === "ok"));
    expect(records.find((x) => x.via === "http" && x.outcome === "ok")!.bytesDown).toBeGreaterThan(0);
  });

  it("forwards host:port entries as plain TCP, and closes a refused one", async () => {
    expect(await tcp(tcpPort, "127.0.1.1", "tcp-hello")).toBe("tcp-hello");
    expect(await tcp(deniedTcpPort, "127.0.1.2", "tcp-hello")).toBe("");
  });

  it("decides by the target alone: a Host header naming another host changes nothing, an origin-form request is refused", async () => {
    const plain = await raw(`GET http://127.0.0.1:${webPort}/h HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n`);
    expect(plain).toMatch(new RegExp(`hello /h host=127\\.0\\.0\\.1:${webPort}$`)); // the checked name goes on, not the server's
    const tunnel = await raw(`CONNECT 127.0.0.2:${echoPort} HTTP/1.1\r\nHost: 127.0.0.1:${echoPort}\r\n\r\n`);
    expect(tunnel).toMatch(/^HTTP\/1\.1 403 /);
    expect(await raw(`GET /h HTTP/1.1\r\nHost: 127.0.0.1:${webPort}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400 /);
    expect(await raw(`CONNECT http://127.0.0.1:${echoPort} HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 [^]*not host:port/);
  });

  it("keeps a GET's chunked body inside its request: the host sees one request, not a second one smuggled in it", async () => {
    const inner = `GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    const answer = await raw(`GET http://127.0.0.1:${upPort}/body HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
      `${inner.length.toString(16)}\r\n${inner}\r\n0\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(seen.filter((r) => r.includes("smuggled"))).toEqual([`GET /body ${JSON.stringify(inner)}`]);
  });

  it("passes a redirect back to the server instead of following it (the next request is decided on its own)", async () => {
    const answer = await raw(`GET http://127.0.0.1:${upPort}/redirect HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 302 [^]*location: http://127\\.0\\.0\\.1:${upPort}/followed`, "i"));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.some((r) => r.includes("/followed"))).toBe(false);
  });

  it("serves the same through a forwarder that copies (before a handoff): tunnels, early answers, refusals, TCP", async () => {
    expect(await connect(`127.0.0.1:${echoPort}`, "copy-1", copyPort)).toEqual({ status: "HTTP/1.1 200 Connection Established", echoed: "copy-1" });
    expect(await connect(`localhost:${echo2Port}`, "x", copyPort)).toEqual({ status: "HTTP/1.1 200 Connection Established", echoed: "" });
    expect((await connect(`127.0.0.1:${webPort + 1}`, "x", copyPort)).status).toBe("HTTP/1.1 403 Forbidden");
    expect(await tcp(copyTcpPort, "127.0.1.3", "copy-tcp")).toBe("copy-tcp");
    await waitFor(() => records.some((x) => x.port === echoPort && x.bytesUp === 8)); // its slot is back (next test counts them)
    expect(records.find((x) => x.port === echoPort && x.bytesUp === 8)).toMatchObject({ outcome: "ok", bytesDown: 8 });
  });

  it(`bounds what one connection opens upstream: ${MAX_UPSTREAM} at once, the rest refused and recorded`, async () => {
    const extra = 20;
    const c = net.connect(socket);
    c.on("error", () => {});
    c.write(`GET http://127.0.0.1:${upPort}/hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`.repeat(MAX_UPSTREAM + extra));
    const busy = () => records.filter((r) => r.outcome === "denied" && /too many connections at once/.test(r.reason ?? ""));
    await waitFor(() => holding >= MAX_UPSTREAM && busy().length >= extra, 8000);
    await new Promise((r) => setTimeout(r, 100));
    expect(maxHolding).toBe(MAX_UPSTREAM); // one connection, pipelining, never gets more upstream than that
    expect(busy()).toHaveLength(extra);
    c.destroy();
    for (const r of held.splice(0)) r();
    // the slots come back: the next request goes through
    await waitFor(() => holding === 0);
    expect(await raw(`GET http://127.0.0.1:${upPort}/body HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200/);
  });
});

/** One request written as is to the proxy's socket; the whole answer (the connection closes after it). */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = net.connect(socket, () => c.write(request));
    let text = "";
    c.on("data", (d) => (text += d.toString()));
    c.on("error", reject);
    c.on("close", () => resolve(text));
    c.on("end", () => c.end());
  });
}
