/**
 * The HTTP boundary of `serve --http` (SPEC 4.9, SECURITY.md): only a request with the token, a Host naming the
 * loopback listener and (when present) a loopback Origin reaches the gateway. Every request here goes to the
 * listener the test started on 127.0.0.1; none leaves the machine (evil.example is only a header value).
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { nodeBaseImage } from "../helpers/images.ts";
import { auditLines, containersOf } from "../helpers/gateway.ts";
import { fixtureProject, httpClient, INITIALIZE, killServes, mcpbox, postHeaders, raw, serveHttp, tokenOf, type Served } from "./_serve.ts";
import type { TestProject } from "../helpers/gateway.ts";

let image: string;
let p: TestProject;
let s: Served;

beforeAll(async () => {
  image = await nodeBaseImage();
  p = fixtureProject(image);
  s = await serveHttp(p);
});
afterAll(async () => {
  s.child.kill("SIGTERM");
  await s.exited;
  killServes();
});

describe("the bearer token", () => {
  it("is made on first use: 32 random bytes in a 0600 file of the private home, printed by mcpbox token", async () => {
    const file = path.join(p.home, "http-token");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const token = tokenOf(p);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    const printed = await mcpbox(p, ["token"]);
    expect(printed).toMatchObject({ code: 0, stdout: `${token}\n` });
  });

  it("missing → 401 with WWW-Authenticate: Bearer, wrong → 401, right → served", async () => {
    const none = await raw(s.port, "POST", postHeaders(s.port), INITIALIZE);
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer\b/);
    const token = tokenOf(p);
    const wrongToken = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`; // one character off, never the token itself
    const wrong = await raw(s.port, "POST", postHeaders(s.port, { authorization: `Bearer ${wrongToken}` }), INITIALIZE);
    expect(wrong.status).toBe(401);
    expect(wrong.headers["www-authenticate"]).toMatch(/^Bearer\b/);
    for (const r of [none, wrong]) {
      expect(r.body).not.toContain(token);
      expect(r.headers["mcp-session-id"]).toBeUndefined();
    }
    await expect(httpClient(s.url, "not-the-token")).rejects.toThrow();
    const { client, transport } = await httpClient(s.url, token);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("fix__echo");
    await transport.terminateSession();
    await client.close();
  });

  it("rotated, the old token is refused for new requests and the new one works", async () => {
    const old = tokenOf(p);
    const rotated = await mcpbox(p, ["token", "--rotate"]);
    expect(rotated.code).toBe(0);
    const fresh = rotated.stdout.trim();
    expect(fresh).not.toBe(old);
    expect(tokenOf(p)).toBe(fresh);
    expect(fs.statSync(path.join(p.home, "http-token")).mode & 0o777).toBe(0o600);
    expect((await raw(s.port, "POST", postHeaders(s.port, { authorization: `Bearer ${old}` }), INITIALIZE)).status).toBe(401);
    const ok = await raw(s.port, "POST", postHeaders(s.port, { authorization: `Bearer ${fresh}` }), INITIALIZE);
    expect(ok.status).toBe(200);
  });

  it("is never in the gateway's stderr, its argv, the audit log or an error", async () => {
    const token = tokenOf(p);
    const { client, transport } = await httpClient(s.url, token);
    await client.callTool({ name: "fix__echo", arguments: { text: "audited" } });
    await transport.terminateSession();
    await client.close();
    expect(s.stderr()).not.toContain(token);
    expect(fs.readFileSync(`/proc/${s.pid}/cmdline`, "utf8")).not.toContain(token);
    const audit = auditLines(p);
    expect(audit.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toContain(token);
  });
});

describe("config --mode http", () => {
  it("writes the URL and a reference to MCPBOX_TOKEN into the client's file, never the token", async () => {
    const token = tokenOf(p);
    const file = path.join(p.dir, "mcp.json");
    const r = await mcpbox(p, ["config", "vscode", "--mode", "http", "--write", "--file", file], { MCPBOX_TOKEN: token });
    expect(r.code, r.stderr).toBe(0);
    const written = fs.readFileSync(file, "utf8");
    expect(JSON.parse(written).servers.mcpbox).toEqual({ type: "http", url: "http://127.0.0.1:8808/mcp", headers: { Authorization: "Bearer ${env:MCPBOX_TOKEN}" } });
    expect(written + r.stdout + r.stderr).not.toContain(token);
    const refused = await mcpbox(p, ["config", "claude-desktop", "--mode", "http"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Claude Desktop cannot take the token[\s\S]*--mode gateway/);
  });
});

describe("DNS rebinding", () => {
  it("a Host that is not the listener → 403, even with the token", async () => {
    const auth = { authorization: `Bearer ${tokenOf(p)}` };
    for (const host of [`evil.example:${s.port}`, "127.0.0.1", `127.0.0.1:${s.port + 1}`]) {
      const r = await raw(s.port, "POST", postHeaders(s.port, { ...auth, host }), INITIALIZE);
      expect(r.status, host).toBe(403);
    }
    expect((await raw(s.port, "POST", postHeaders(s.port, { ...auth, host: `localhost:${s.port}` }), INITIALIZE)).status).toBe(200);
  });

  it("an Origin that is not of this machine → 403, even with the token", async () => {
    const auth = { authorization: `Bearer ${tokenOf(p)}` };
    for (const origin of ["http://evil.example", "null", `http://evil.example:${s.port}`]) {
      const r = await raw(s.port, "POST", postHeaders(s.port, { ...auth, origin }), INITIALIZE);
      expect(r.status, origin).toBe(403);
    }
    expect((await raw(s.port, "POST", postHeaders(s.port, { ...auth, origin: "http://localhost:3000" }), INITIALIZE)).status).toBe(200);
  });
});

describe("sessions and bodies", () => {
  it("an unknown session id → 404; a body over the cap → 413 without reading it all", async () => {
    const auth = { authorization: `Bearer ${tokenOf(p)}` };
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const unknown = await raw(s.port, "POST", postHeaders(s.port, { ...auth, "mcp-session-id": "0b4e4a7e-0000-4000-8000-000000000000" }), list);
    expect(unknown.status).toBe(404);
    const big = await raw(s.port, "POST", postHeaders(s.port, { ...auth, "content-length": String(17 * 1024 * 1024) }), "");
    expect(big.status).toBe(413);
  });
});

describe("connections (before any token is checked)", () => {
  /** A raw TCP connection to the listener; `closed` resolves when the gateway closes it. */
  const connect = (port: number) =>
    new Promise<{ socket: net.Socket; closed: Promise<number> }>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("error", () => {});
      socket.resume();
      const closed = new Promise<number>((r) => socket.once("close", () => r(Date.now())));
      socket.once("connect", () => resolve({ socket, closed }));
      socket.once("error", reject);
    });

  it("more than 256 at once are closed as they come; one sending its headers byte by byte, or nothing, is cut off within seconds; a client then works", async () => {
    const held = [];
    for (let i = 0; i < 270; i++) held.push(await connect(s.port));
    const t0 = Date.now();
    const slowloris = held[0]!;
    const header = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nX-Slow: `;
    let sent = 0;
    const drip = setInterval(() => slowloris.socket.writable && slowloris.socket.write(header[sent++ % header.length]!), 200);
    // the ones past the bound are closed at once; the rest within the 10 s header deadline (checked each second)
    const early = await Promise.race([Promise.all(held.slice(256).map((h) => h.closed)), new Promise<undefined>((r) => setTimeout(() => r(undefined), 3000))]);
    expect(early, "the connections past 256 were not closed").toBeDefined();
    const ends = await Promise.all(held.map((h) => h.closed));
    clearInterval(drip);
    expect(Math.max(...ends) - t0).toBeLessThan(15_000);
    expect(await slowloris.closed).toBeGreaterThan(0);
    const c = await httpClient(s.url, tokenOf(p));
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(0);
    await c.transport.terminateSession().catch(() => {});
    await c.client.close();
    expect(s.stderr()).toContain("more than 256 connections at once");
  }, 60_000);
});

describe("refused before anything starts", () => {
  afterEach(killServes);

  it("--allow-unauthenticated with a non-loopback address: exit 2, no container", async () => {
    const q = fixtureProject(image);
    const r = await mcpbox(q, ["serve", "-c", q.config, "--http", "0.0.0.0:0", "--allow-unauthenticated"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--allow-unauthenticated refuses 0\.0\.0\.0/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("--allow-unauthenticated on loopback serves without a token and warns on stderr", async () => {
    const q = fixtureProject(image);
    const open = await serveHttp(q, ["--allow-unauthenticated"]);
    expect(open.stderr()).toMatch(/warning: serving http:\/\/127\.0\.0\.1:\d+\/mcp WITHOUT a token/);
    expect(fs.existsSync(path.join(q.home, "http-token"))).toBe(false);
    const { client, transport } = await httpClient(open.url, undefined);
    expect((await client.callTool({ name: "fix__echo", arguments: { text: "open" } })).content).toEqual([{ type: "text", text: "open" }]);
    await transport.terminateSession();
    await client.close();
    open.child.kill("SIGINT");
    expect(await open.exited).toMatchObject({ code: 0 });
    expect(await containersOf(open.pid)).toEqual([]);
  });

  it("a token file that group or others can read is refused (serve exit 3, token too) and named", async () => {
    const q = fixtureProject(image);
    expect((await mcpbox(q, ["token"])).code).toBe(0);
    const file = path.join(q.home, "http-token");
    fs.chmodSync(file, 0o640);
    const served = await mcpbox(q, ["serve", "-c", q.config, "--http", "127.0.0.1:0"]);
    expect(served.code).toBe(3);
    expect(served.stderr).toContain(`the token file ${file} may be read or written by its group (mode 0640)`);
    expect(served.stderr).not.toContain(fs.readFileSync(file, "utf8").trim());
    fs.chmodSync(file, 0o604);
    const printed = await mcpbox(q, ["token"]);
    expect(printed.code).toBe(3);
    expect(printed.stdout).toBe("");
  });
});
