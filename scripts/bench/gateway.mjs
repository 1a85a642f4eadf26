/**
 * The gateway (issue 3): echo round trip and calls per second with 16 in flight through `dist/mcpbox serve`, next to
 * an SDK Client on the same image's container started directly through dockerode with the same policy (baseline) and
 * next to a process that only copies bytes to such a container (what one extra hop costs here), interleaved; the time
 * from spawning serve with five servers to an answered tools/list, next to five direct starts (in parallel, as the
 * gateway starts them: the baseline; also one at a time, the slowest shown) and to the engine's own cost of five
 * trivial containers at once; the gateway's RSS with ten servers. The CPU serve and the byte copier spend per call
 * with 16 in flight (/proc, user + system) is shown too: it moves less with the machine's load than calls/s.
 */
import fs from "node:fs";
import { engine } from "../../src/docker/engine.ts";
import { LABEL } from "../../src/policy/labels.ts";
import { ensureTestImage } from "../../test/helpers/images.ts";
import { percentile, requireBinary, timedRow } from "./_lib.mjs";
import {
  SESSION,
  cleanup,
  cpuMicros,
  gatewayGone,
  gatewayProject,
  openDirect,
  openGateway,
  openRelay,
  rssMb,
  throughput,
  timedEcho,
} from "./_gateway-lib.mjs";

const ECHO_BASE = "echo, direct through dockerode (baseline)";
const ECHO_RELAY = "echo through a byte-copying process (one extra hop, no work)";
const RATE_BASE = "calls/s, 16 in flight, direct (baseline)";
const CPU_RELAY = "CPU of the byte-copying process per call, 16 in flight";
const START_BASE = "5 direct starts in parallel → initialize, slowest (baseline)";
const stats = (v) => ({ median: percentile(v, 50), p95: percentile(v, 95), samples: v });

export default async function run({ runs = 300 } = {}) {
  requireBinary();
  const docker = engine();
  const image = await ensureTestImage("mcpbox-test/everything:latest", docker);
  const pids = new Set();
  const projects = [];
  const project = (n) => (projects.push(gatewayProject(image, n)), projects.at(-1));
  try {
    const calls = await callRows(docker, image, project(1), pids, runs);
    const start = await startRows(docker, image, project(5), pids);
    const memory = await memoryRows(project(10), pids);
    return [...calls, ...start, ...memory];
  } finally {
    await cleanup(docker, pids);
    for (const p of projects) fs.rmSync(p.dir, { recursive: true, force: true });
  }
}

/** Echo latency (interleaved call by call) and throughput (interleaved block by block), gateway vs direct. */
async function callRows(docker, image, proj, pids, runs) {
  const gw = await openGateway(proj, pids);
  const direct = await openDirect(docker, image, "echo");
  const relay = await openRelay(image);
  try {
    const paths = [
      { name: "gw", client: gw.client, tool: "s0__echo" },
      { name: "relay", client: relay.client, tool: "echo" },
      { name: "direct", client: direct.client, tool: "echo" },
    ];
    const samples = { gw: [], relay: [], direct: [] };
    for (let i = 0; i < 30 + runs; i++) {
      // rotate which goes first, so none always follows another
      for (const p of [...paths.slice(i % 3), ...paths.slice(0, i % 3)]) {
        const ms = await timedEcho(p.client, p.tool, i);
        if (i >= 30) samples[p.name].push(ms);
      }
    }
    const rate = { gw: [], relay: [], direct: [] };
    // the CPU each process in the middle spends per call (utime + stime, all threads): less load-bound than calls/s
    const cpu = { gw: { pid: gw.pid, us: 0 }, relay: { pid: relay.pid, us: 0 } };
    let rateCalls = 0;
    for (let block = 0; block < 4; block++) {
      for (const p of block % 2 ? paths : [...paths].reverse()) {
        const c0 = cpu[p.name] && cpuMicros(cpu[p.name].pid);
        rate[p.name].push(await throughput(p.client, p.tool, 500, 16));
        const c1 = cpu[p.name] && cpuMicros(cpu[p.name].pid);
        if (c0 !== undefined && c1 !== undefined) cpu[p.name].us += c1 - c0;
      }
      rateCalls += 500;
    }
    const rssOne = rssMb(gw.pid);
    const echoBase = stats(samples.direct);
    const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
    return [
      timedRow(ECHO_BASE, echoBase),
      timedRow(ECHO_RELAY, stats(samples.relay), { baseline: ECHO_BASE }),
      timedRow("echo through mcpbox serve", stats(samples.gw), {
        baseline: ECHO_BASE,
        goal: { below: echoBase.median * 1.25, text: "(the gateway adds under 25%)" },
      }),
      { measure: RATE_BASE, value: mean(rate.direct), unit: "calls/s" },
      { measure: "calls/s, 16 in flight, byte-copying process", value: mean(rate.relay), unit: "calls/s", baseline: RATE_BASE },
      { measure: "calls/s, 16 in flight, through mcpbox serve", value: mean(rate.gw), unit: "calls/s", baseline: RATE_BASE },
      ...(cpu.gw.us > 0 && cpu.relay.us > 0
        ? [
            { measure: CPU_RELAY, value: cpu.relay.us / rateCalls, unit: "µs/call" },
            { measure: "CPU of mcpbox serve per call, 16 in flight", value: cpu.gw.us / rateCalls, unit: "µs/call", baseline: CPU_RELAY },
          ]
        : []),
      { measure: `gateway RSS, 1 server, after ${runs + 30 + 2000} calls`, value: rssOne, unit: "MB" },
    ];
  } finally {
    await gw.close().catch(() => {});
    await direct.close().catch(() => {});
    await relay.close().catch(() => {});
    await gatewayGone(docker, gw.pid);
  }
}

/** Spawn → tools/list answered with five servers, vs five direct starts → initialize, round by round. */
async function startRows(docker, image, proj, pids, rounds = 3) {
  const samples = { gw: [], direct: [], single: [], bare1: [], bare5: [] };
  for (let round = 0; round < rounds + 1; round++) {
    const bare1 = await bareStarts(docker, image, 1);
    const bare5 = await bareStarts(docker, image, 5);
    const single = Math.max(...(await sequentialStarts(docker, image, 5)));
    const direct = await directStarts(docker, image, 5);
    const t0 = performance.now();
    const gw = await openGateway(proj, pids);
    try {
      const { tools } = await gw.client.listTools();
      const ms = performance.now() - t0;
      const servers = new Set(tools.filter((t) => t.name.endsWith("__echo")).map((t) => t.name));
      if (servers.size !== 5) throw new Error(`tools/list had ${servers.size} echo tools, not 5:\n${gw.stderr()}`);
      if (round >= 1) samples.gw.push(ms), samples.direct.push(direct), samples.single.push(single), samples.bare1.push(bare1), samples.bare5.push(bare5);
    } finally {
      await gw.close().catch(() => {});
      await gatewayGone(docker, gw.pid);
    }
  }
  const base = stats(samples.direct);
  return [
    timedRow("engine alone: 1 container running /bin/true, create → removed", stats(samples.bare1)),
    timedRow("engine alone: 5 such containers at once", stats(samples.bare5), { baseline: "engine alone: 1 container running /bin/true, create → removed" }),
    timedRow("5 direct starts one at a time → initialize, slowest", stats(samples.single)),
    timedRow(START_BASE, base),
    timedRow("spawn mcpbox serve (5 servers) → tools/list", stats(samples.gw), {
      baseline: START_BASE,
      goal: { below: base.median * 1.5, text: "(under 1.5x the slowest direct start)" },
    }),
  ];
}

/** The engine's own cost of `n` containers at once: create, start, wait for /bin/true to exit, remove. */
async function bareStarts(docker, image, n) {
  const one = async () => {
    const c = await docker.createContainer({
      Image: image,
      Entrypoint: ["/bin/true"],
      Labels: { [LABEL.session]: SESSION },
      HostConfig: { NetworkMode: "none" },
    });
    await c.start();
    await c.wait();
    await c.remove({ force: true });
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, one));
  return performance.now() - t0;
}

/** `n` single starts, one after the other: the time of each. */
async function sequentialStarts(docker, image, n) {
  const times = [];
  for (let i = 0; i < n; i++) times.push(await directStarts(docker, image, 1));
  return times;
}

/** Starts `n` containers at once and connects to each; the time until the last initialize was answered. */
async function directStarts(docker, image, n) {
  const t0 = performance.now();
  const opened = await Promise.allSettled(Array.from({ length: n }, (_, i) => openDirect(docker, image, `start${i}`)));
  const ms = performance.now() - t0;
  await Promise.all(opened.map((o) => (o.status === "fulfilled" ? o.value.close() : undefined)));
  const failed = opened.find((o) => o.status === "rejected");
  if (failed) throw failed.reason;
  return ms;
}

/** RSS of the serve process with ten servers running, after tools/list and an echo call to each server. */
async function memoryRows(proj, pids) {
  const gw = await openGateway(proj, pids);
  try {
    const { tools } = await gw.client.listTools();
    const echoes = tools.filter((t) => t.name.endsWith("__echo")).map((t) => t.name);
    if (echoes.length !== 10) throw new Error(`tools/list had ${echoes.length} echo tools, not 10:\n${gw.stderr()}`);
    for (let i = 0; i < 3; i++) for (const tool of echoes) await timedEcho(gw.client, tool, i);
    return [{ measure: "gateway RSS, 10 servers, after tools/list and 30 calls", value: rssMb(gw.pid), unit: "MB" }];
  } finally {
    await gw.close().catch(() => {});
  }
}
