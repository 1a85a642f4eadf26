/**
 * The gateway's own CPU per tools/call (issue 15), without an engine or other processes: the real Gateway, client
 * transport (gateway/stdio.ts), fast lane, container transport (docker/stdio-transport.ts) and the attach demux
 * (docker/_attach.ts) in this process, over in-memory streams, to an in-process echo server that speaks through docker
 * stream frames. The baseline is the same client and server joined by a byte copier through the same streams (what
 * scripts/bench/_byte-relay.mjs does). Both are measured as process CPU (user + system) over a fixed number of calls,
 * one at a time and 16 in flight, rounds interleaved; the difference is what the gateway's JavaScript costs per call,
 * a figure the machine's load moves far less than a round trip through real processes.
 * A third figure has each call come after 1 ms of idle: what a woken process pays (its caches cold), about 3.5x the
 * hot cost here, and the closest to what a real serve spends on a call one at a time.
 * `node scripts/bench/hot-path.mjs [calls] [--only gw|base] [--rounds N] [--hot]` runs it alone (e.g. under --cpu-prof;
 * --hot leaves the idle figure out; HOT_WARM sets the calls made before measuring, default 2000). Repeatable instruction counts: two runs of different `calls` under
 * `valgrind --tool=callgrind` with node --predictable --hash-seed=1 --random-seed=1 (+-0.2%; without them +-5%).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Duplex, PassThrough } from "node:stream";
import { resolveConfig } from "../../src/config/resolve.ts";
import { UserConfigSchema } from "../../src/config/schema.ts";
import { demuxAttached } from "../../src/docker/_attach.ts";
import { ContainerStdioTransport } from "../../src/docker/stdio-transport.ts";
import { openAudit } from "../../src/gateway/audit.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { redactor } from "../../src/gateway/redact.ts";
import { BoundedStdioTransport } from "../../src/gateway/stdio.ts";
import { GatewayEvents } from "../../src/monitor/events.ts";
import { Recorder } from "../../src/monitor/recorder.ts";
import { percentile } from "./_lib.mjs";

const WARM = Number(process.env.HOT_WARM ?? 2000);

/** One docker stream frame (stdout) around `text`. */
function frame(text) {
  const body = Buffer.from(text);
  const out = Buffer.allocUnsafe(8 + body.length);
  out.writeUInt32BE(0x01000000, 0);
  out.writeUInt32BE(body.length, 4);
  body.copy(out, 8);
  return out;
}

/**
 * An echo MCP server (2025-11-25) behind a fake hijacked attach socket: what the gateway writes is its stdin, its
 * answers come back as stdout frames, each in a later turn of the event loop (as a separate process's would).
 */
function echoServerSocket() {
  let pending = "";
  const socket = new Duplex({
    read() {},
    write(chunk, _enc, done) {
      pending += chunk;
      let nl;
      const out = [];
      while ((nl = pending.indexOf("\n")) !== -1) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const m = JSON.parse(line);
        if (m.id === undefined) continue;
        out.push(JSON.stringify({ jsonrpc: "2.0", id: m.id, ...answer(m) }));
      }
      if (out.length > 0) setImmediate(() => socket.push(frame(out.join("\n") + "\n")));
      done();
    },
  });
  return socket;
}

function answer(m) {
  switch (m.method) {
    case "initialize":
      return { result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "echo", version: "1" } } };
    case "tools/list":
      return { result: { tools: [{ name: "echo", description: "echoes", inputSchema: { type: "object", properties: { message: { type: "string" } } } }] } };
    case "tools/call":
      return { result: { content: [{ type: "text", text: `Echo: ${m.params.arguments.message}` }] } };
    default:
      return { error: { code: -32601, message: "Method not found" } };
  }
}

function launcher() {
  return {
    async launch() {
      const stdio = demuxAttached(echoServerSocket());
      const transport = new ContainerStdioTransport(stdio.stdin, stdio.stdout);
      return { id: "echo", transport, onStderr: () => () => {}, exited: new Promise(() => {}), stop: async () => void transport.close() };
    },
    async close() {},
  };
}

/** A client of raw lines on `input`/`output`: call(i) sends one echo tools/call and resolves with its answer. */
function lineClient(toServer, fromServer) {
  const waiting = new Map();
  let buf = "";
  fromServer.on("data", (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) !== -1) {
      const m = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      const w = waiting.get(m.id);
      if (w) waiting.delete(m.id), w(m);
    }
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      toServer.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  return { request, notify: (method) => toServer.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n") };
}

async function openGateway(home) {
  const parsed = UserConfigSchema.parse({ servers: { s0: { image: "echo" } }, audit: { path: path.join(home, "audit") } });
  const config = resolveConfig(parsed, path.join(home, "sandbox.config.ts"));
  const events = new GatewayEvents();
  const recorder = new Recorder(); // what serve's monitor socket does with each event while no monitor is connected
  events.on((e) => recorder.record(e));
  const gw = new Gateway({
    servers: config.servers,
    launcher: launcher(),
    session: "bench",
    events,
    audit: openAudit(config),
    redact: redactor(["not-a-secret-in-the-calls"]),
    log: () => {},
  });
  const cin = new PassThrough();
  const cout = new PassThrough();
  await gw.connect(new BoundedStdioTransport(cin, cout));
  gw.startEager();
  return { client: lineClient(cin, cout), tool: "s0__echo", close: () => gw.close() };
}

async function openBase() {
  const cin = new PassThrough();
  const cout = new PassThrough();
  const stdio = demuxAttached(echoServerSocket(), { chunkOfLines: false });
  cin.on("data", (chunk) => stdio.stdin.write(chunk));
  stdio.stdout.on("data", (chunk) => cout.write(chunk));
  return { client: lineClient(cin, cout), tool: "echo", close: async () => {} };
}

async function connect(path_) {
  const { client, tool } = path_;
  await client.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
  client.notify("notifications/initialized");
  path_.call = async (i) => {
    const r = await client.request("tools/call", { name: tool, arguments: { message: `bench ${i}` } });
    if (r.result?.content?.[0]?.text !== `Echo: bench ${i}`) throw new Error(`${tool}: ${JSON.stringify(r)}`);
  };
  for (let i = 0; i < WARM; i++) await path_.call(i); // warm: the JIT has seen the path
  return path_;
}

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** `pauseMs` > 0: each call after that long idle (a sleeping process woken by it, as a real serve between calls). */
async function sequential(p, n, pauseMs = 0) {
  const c0 = cpuUs();
  for (let i = 0; i < n; i++) {
    await p.call(i);
    if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
  }
  return (cpuUs() - c0) / n;
}

async function inFlight(p, n, width = 16) {
  let next = 0;
  const c0 = cpuUs();
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await p.call(next++);
  }));
  return (cpuUs() - c0) / n;
}

export default async function run({ runs } = {}) {
  const calls = runs ?? 20_000;
  const r = await measure(calls, 3, ["gw", "base"]);
  const row = (measure, v, extra = {}) => ({ measure, value: percentile(v, 50), unit: "µs/call", ...extra });
  const SEQ = "in-process byte copier, CPU per call, one at a time (baseline)";
  const PAR = "in-process byte copier, CPU per call, 16 in flight (baseline)";
  const WOKEN = "in-process byte copier, CPU per call, each after 1 ms idle (baseline)";
  const diff = (a, b) => a.map((v, i) => v - b[i]);
  return [
    row(SEQ, r.base.seq),
    row("in-process gateway, CPU per call, one at a time", r.gw.seq, { baseline: SEQ }),
    row("in-process gateway's own CPU per call, one at a time (difference)", diff(r.gw.seq, r.base.seq)),
    row(WOKEN, r.base.woken),
    row("in-process gateway, CPU per call, each after 1 ms idle", r.gw.woken, { baseline: WOKEN }),
    row("in-process gateway's own CPU per call, each after 1 ms idle (difference)", diff(r.gw.woken, r.base.woken)),
    row(PAR, r.base.par),
    row("in-process gateway, CPU per call, 16 in flight", r.gw.par, { baseline: PAR }),
    row("in-process gateway's own CPU per call, 16 in flight (difference)", diff(r.gw.par, r.base.par)),
  ];
}

async function measure(calls, rounds, which, woken = true) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-bench-hot-"));
  const paths = {};
  try {
    if (which.includes("gw")) paths.gw = await connect(await openGateway(home));
    if (which.includes("base")) paths.base = await connect(await openBase());
    const out = Object.fromEntries(which.map((k) => [k, { seq: [], par: [], woken: [] }]));
    for (let round = 0; round < rounds; round++) {
      for (const k of round % 2 ? [...which].reverse() : which) {
        out[k].seq.push(await sequential(paths[k], calls));
        out[k].par.push(await inFlight(paths[k], calls));
        // the idle between calls also counts (a timer each): equal on both sides, it cancels out of the difference
        if (woken) out[k].woken.push(await sequential(paths[k], Math.min(calls, 2000), 1));
      }
    }
    return out;
  } finally {
    for (const p of Object.values(paths)) await p.close().catch(() => {});
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const at = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const calls = Number(args.find((a) => /^\d+$/.test(a)) ?? 20_000);
  const which = at("--only") ? [at("--only")] : ["gw", "base"];
  const r = await measure(calls, Number(at("--rounds") ?? 3), which, !args.includes("--hot"));
  for (const [k, v] of Object.entries(r)) {
    const f = (a) => a.map((x) => x.toFixed(1)).join(" ");
    const woken = v.woken.length > 0 ? `; after 1 ms idle ${f(v.woken)} (median ${percentile(v.woken, 50).toFixed(1)})` : "";
    process.stdout.write(`${k}: one at a time ${f(v.seq)} µs/call (median ${percentile(v.seq, 50).toFixed(1)}); 16 in flight ${f(v.par)} (median ${percentile(v.par, 50).toFixed(1)})${woken}\n`);
  }
  process.exit(0);
}
