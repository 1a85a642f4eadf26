/**
 * Boundary 22, the environment's part: Node settings in serve's environment must not carry what mcpbox sends the
 * engine anywhere else. Two of them did, through Node's global agent and its debug output, which the binary honours:
 * - NODE_DEBUG=http (or https) printed the TLS client key of DOCKER_CERT_PATH on stderr, the client's log file (Node's
 *   https agent names each connection pool by the request's TLS options, the key in full, and logs that name);
 * - NODE_USE_ENV_PROXY=1 with HTTP_PROXY set sent every request to a tcp:// engine through the proxy: each create's
 *   body with the Env and its secrets, and the attach streams of the servers' MCP traffic.
 * Each engine here is the test's own on loopback (a TLS one that requires its client certificate, a plain one), as is
 * the proxy; `mcpbox ps` talks to them.
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpboxCommand } from "../helpers/gateway.ts";

let dir: string;
const servers: (http.Server | https.Server)[] = [];

/** A stand-in engine: answers a ping, a version and a container list (none), and records what it was asked. */
function fakeEngine(seen: string[]): http.RequestListener {
  return (req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const url = req.url ?? "";
    if (url.endsWith("/_ping")) return void res.writeHead(200, { "Content-Type": "text/plain" }).end("OK");
    if (url.includes("/version")) return void res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ Version: "27.0.0", ApiVersion: "1.47", Os: "linux", Arch: "amd64" }));
    if (url.includes("/containers/json")) return void res.writeHead(200, { "Content-Type": "application/json" }).end("[]");
    res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ message: "not here" }));
  };
}

async function listen(server: http.Server | https.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as net.AddressInfo).port;
}

/** `mcpbox ps` with `env` (not spawnSync: the engines answer from this process's event loop). */
function ps(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  const { command, args } = mcpboxCommand();
  const home = fs.mkdtempSync(path.join(dir, "home-"));
  const base = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), NO_COLOR: "1" };
  return new Promise((resolve) =>
    execFile(command, [...args, "ps"], { env: { ...base, ...env }, timeout: 60_000 }, (_e, stdout, stderr) => resolve({ stdout, stderr })),
  );
}

const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-sec-engine-env-"));
  // a CA, the engine's certificate for 127.0.0.1 and the client's, as `docker` keeps them in DOCKER_CERT_PATH
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "2", "-subj", "/CN=mcpbox test CA");
  for (const [name, ext] of [["server", "subjectAltName=IP:127.0.0.1"], ["client", "extendedKeyUsage=clientAuth"]] as const) {
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}-key.pem`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
    fs.writeFileSync(path.join(dir, `${name}.ext`), `${ext}\n`);
    openssl("x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial", "-out", `${name}.pem`, "-days", "2", "-extfile", `${name}.ext`);
  }
  fs.mkdirSync(path.join(dir, "certs"));
  fs.copyFileSync(path.join(dir, "ca.pem"), path.join(dir, "certs", "ca.pem"));
  fs.copyFileSync(path.join(dir, "client.pem"), path.join(dir, "certs", "cert.pem"));
  fs.copyFileSync(path.join(dir, "client-key.pem"), path.join(dir, "certs", "key.pem"));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a TLS engine with NODE_DEBUG=http,https,tls,net", () => {
  it("is reached with the client certificate, and its key is not printed", async () => {
    const read = (f: string) => fs.readFileSync(path.join(dir, f));
    const seen: string[] = [];
    const port = await listen(https.createServer({ key: read("server-key.pem"), cert: read("server.pem"), ca: read("ca.pem"), requestCert: true, rejectUnauthorized: true }, fakeEngine(seen)));
    const r = await ps({ DOCKER_HOST: `tcp://127.0.0.1:${port}`, DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: path.join(dir, "certs"), NODE_DEBUG: "http,https,tls,net" });
    expect(seen.some((s) => s.includes("/containers/json")), `the engine was asked for its containers:\n${r.stderr}`).toBe(true);
    expect(r.stderr).toMatch(/NET|HTTP|TLS/); // Node's debug output was on
    const key = fs.readFileSync(path.join(dir, "certs", "key.pem"), "utf8");
    const body = key.split("\n").filter((l) => l && !l.startsWith("-----"));
    expect(body.length).toBeGreaterThan(10);
    for (const line of [body[1]!, body[body.length - 2]!]) expect(r.stderr.includes(line) || r.stdout.includes(line), "a line of the client key on stderr").toBe(false);
  });
});

describe("a tcp:// engine with NODE_USE_ENV_PROXY=1 and a proxy in HTTP_PROXY", () => {
  it("is reached directly: the proxy gets nothing", async () => {
    const seen: string[] = [];
    const port = await listen(http.createServer(fakeEngine(seen)));
    const proxied: string[] = [];
    const proxyPort = await listen(http.createServer((req, res) => (proxied.push(`${req.method} ${req.url}`), res.writeHead(502).end())));
    const proxy = `http://127.0.0.1:${proxyPort}`;
    const r = await ps({ DOCKER_HOST: `tcp://127.0.0.1:${port}`, NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy, http_proxy: proxy, HTTPS_PROXY: proxy, NO_PROXY: "", no_proxy: "" });
    expect(seen.some((s) => s.includes("/containers/json")), `the engine was asked for its containers:\n${r.stderr}`).toBe(true);
    expect(proxied).toEqual([]);
  });
});
