/**
 * The gateway over Streamable HTTP (issue 14): echo round trip and calls per second with 16 in flight through
 * `dist/mcpbox serve --http`, next to the same server reached over the SDK's own Streamable HTTP transport without
 * mcpbox (an SDK Server in this process, relaying to a container started directly through dockerode with the same
 * policy: the HTTP baseline), and next to that container over its stdio (the direct baseline), interleaved.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { engine } from "../../src/docker/engine.ts";
import { ensureTestImage } from "../../test/helpers/images.ts";
import { BINARY, percentile, requireBinary, timedRow } from "./_lib.mjs";
import { cleanup, gatewayGone, gatewayProject, openDirect, throughput, timedEcho } from "./_gateway-lib.mjs";

const ECHO_DIRECT = "echo, direct through dockerode (baseline)";
const ECHO_SDK = "echo over the SDK's Streamable HTTP, no mcpbox (HTTP baseline)";
const RATE_DIRECT = "calls/s, 16 in flight, direct (baseline)";
const RATE_SDK = "calls/s, 16 in flight, SDK Streamable HTTP, no mcpbox (HTTP baseline)";
const stats = (v) => ({ median: percentile(v, 50), p95: percentile(v, 95), samples: v });

export default async function run({ runs = 300 } = {}) {
  requireBinary();
  const docker = engine();
  const image = await ensureTestImage("mcpbox-test/everything:latest", docker);
  const proj = gatewayProject(image, 1);
  const pids = new Set();
  const direct = await openDirect(docker, image, "echo");
  const viaSdk = await openSdkHttp(await openDirect(docker, image, "echo-http"));
  let gw;
  try {
    gw = await openHttpGateway(proj);
    pids.add(gw.pid);
    const paths = [
      { name: "gw", client: gw.client, tool: "s0__echo" },
      { name: "sdk", client: viaSdk.client, tool: "echo" },
      { name: "direct", client: direct.client, tool: "echo" },
    ];
    const samples = { gw: [], sdk: [], direct: [] };
    for (let i = 0; i < 30 + runs; i++) {
      for (const p of [...paths.slice(i % 3), ...paths.slice(0, i % 3)]) {
        const ms = await timedEcho(p.client, p.tool, i);
        if (i >= 30) samples[p.name].push(ms);
      }
    }
    const rate = { gw: [], sdk: [], direct: [] };
    for (let block = 0; block < 4; block++) {
      for (const p of block % 2 ? paths : [...paths].reverse()) rate[p.name].push(await throughput(p.client, p.tool, 500, 16));
    }
    const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
    return [
      timedRow(ECHO_DIRECT, stats(samples.direct)),
      timedRow(ECHO_SDK, stats(samples.sdk), { baseline: ECHO_DIRECT }),
      timedRow("echo through mcpbox serve --http", stats(samples.gw), { baseline: ECHO_SDK }),
      { measure: RATE_DIRECT, value: mean(rate.direct), unit: "calls/s" },
      { measure: RATE_SDK, value: mean(rate.sdk), unit: "calls/s", baseline: RATE_DIRECT },
      { measure: "calls/s, 16 in flight, through mcpbox serve --http", value: mean(rate.gw), unit: "calls/s", baseline: RATE_SDK },
    ];
  } finally {
    await gw?.close().catch(() => {});
    await viaSdk.close().catch(() => {});
    await direct.close().catch(() => {});
    if (gw) await gatewayGone(docker, gw.pid);
    await cleanup(docker, pids);
    fs.rmSync(proj.dir, { recursive: true, force: true });
  }
}

/** `dist/mcpbox serve --http 127.0.0.1:0` with its token, and an SDK Client over Streamable HTTP. */
async function openHttpGateway(proj) {
  const child = spawn(BINARY, ["serve", "-c", proj.config, "--http", "127.0.0.1:0"], {
    cwd: proj.dir,
    env: { ...process.env, MCPBOX_HOME: proj.home, NO_COLOR: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve --http did not listen within 60 s:\n${stderr}`)), 60_000);
    child.stderr.on("data", () => {
      const m = /serving (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) clearTimeout(timer), resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`serve --http exited ${code}:\n${stderr}`)));
  });
  const token = fs.readFileSync(path.join(proj.home, "http-token"), "utf8").trim();
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  const close = async () => {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  return { client, pid: child.pid, close };
}

/** The HTTP baseline: an SDK Server behind the SDK's StreamableHTTPServerTransport, relaying tools to `up`. */
async function openSdkHttp(up) {
  const transports = new Map();
  const server = http.createServer(async (req, res) => {
    const sid = req.headers["mcp-session-id"];
    let t = typeof sid === "string" ? transports.get(sid) : undefined;
    if (!t) {
      t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (id) => transports.set(id, t) });
      const relay = new Server({ name: "relay", version: "1" }, { capabilities: { tools: {} } });
      relay.setRequestHandler(ListToolsRequestSchema, () => up.client.listTools());
      relay.setRequestHandler(CallToolRequestSchema, (r) => up.client.callTool(r.params));
      await relay.connect(t);
    }
    await t.handleRequest(req, res);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}/mcp`;
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  const close = async () => {
    await client.close().catch(() => {});
    for (const t of transports.values()) await t.close().catch(() => {});
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await up.close();
  };
  return { client, close };
}
