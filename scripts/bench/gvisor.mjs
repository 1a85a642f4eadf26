/**
 * gVisor (issue 16): what runtime "gvisor" (the engine's runsc) costs next to runc, measured in the same run,
 * interleaved round by round. (1) run_code `print(1)` through `dist/mcpbox serve` with a pool of 2 (each call once
 * both pools are full again and their new containers started, as an agent's calls come) and with no pool, on two code-runner servers that differ only in
 * runtime; (2) a server's start to `initialize` answered: server-everything's container started directly through
 * dockerode with the run policy (containerOptions), under runc and under runsc. Goal: pooled run_code under gVisor
 * below 1.5x runc. Needs runsc registered with the engine (scripts/ci/lib.sh ensure_gvisor).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { resolveConfig } from "../../src/config/resolve.ts";
import { UserConfigSchema } from "../../src/config/schema.ts";
import { startServerContainer } from "../../src/docker/container.ts";
import { engine } from "../../src/docker/engine.ts";
import { LABEL } from "../../src/policy/labels.ts";
import { containerOptions } from "../../src/policy/run.ts";
import { ensureTestImage } from "../../test/helpers/images.ts";
import { SESSION, cleanup, gatewayGone, gatewayProject, openGateway } from "./_gateway-lib.mjs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { percentile, requireBinary, timedRow } from "./_lib.mjs";

const POOL_RUNC = "run_code print(1), pool of 2, runc (baseline)";
const COLD_RUNC = "run_code print(1), no pool, runc (baseline)";
const START_RUNC = "server-everything start → initialize, runc (baseline)";
const stats = (v) => ({ median: percentile(v, 50), p95: percentile(v, 95), samples: v });

export default async function run({ runs = 12 } = {}) {
  requireBinary();
  const docker = engine();
  const runtimes = Object.keys((await docker.info()).Runtimes ?? {});
  if (!runtimes.includes("runsc")) throw new Error(`the engine does not offer runsc (it lists ${runtimes.join(", ")}): run scripts/ci/lib.sh ensure_gvisor as root`);
  const image = await ensureTestImage("mcpbox-test/everything:latest", docker);
  const pids = new Set();
  const project = runnerProject();
  const samples = { poolRunc: [], poolGvisor: [], coldRunc: [], coldGvisor: [], startRunc: [], startGvisor: [] };
  try {
    const gw = await openGateway(project, pids);
    try {
      const call = (server) => timedRun(gw.client, server);
      // the first calls build nothing (the runner image exists once serve answered) but warm the engine's caches
      for (let round = 0; round < runs + 2; round++) {
        await poolsSettled(docker, gw.pid);
        const pr = await call("prunc");
        await poolsSettled(docker, gw.pid);
        const pg = await call("pgvisor");
        const cr = await call("crunc");
        const cg = await call("cgvisor");
        if (round >= 2) samples.poolRunc.push(pr), samples.poolGvisor.push(pg), samples.coldRunc.push(cr), samples.coldGvisor.push(cg);
      }
    } finally {
      await gw.close();
      await gatewayGone(docker, gw.pid);
    }
    for (let round = 0; round < runs + 1; round++) {
      const r = await timedStart(docker, image, "runc");
      const g = await timedStart(docker, image, "gvisor");
      if (round >= 1) samples.startRunc.push(r), samples.startGvisor.push(g);
    }
  } finally {
    await cleanup(docker, pids);
    fs.rmSync(project.dir, { recursive: true, force: true });
  }
  const poolRunc = stats(samples.poolRunc);
  return [
    timedRow(POOL_RUNC, poolRunc),
    timedRow("run_code print(1), pool of 2, gvisor", stats(samples.poolGvisor), {
      baseline: POOL_RUNC,
      goal: { below: 1.5 * poolRunc.median, text: "(1.5x runc)" },
    }),
    timedRow(COLD_RUNC, stats(samples.coldRunc)),
    timedRow("run_code print(1), no pool, gvisor", stats(samples.coldGvisor), { baseline: COLD_RUNC }),
    timedRow(START_RUNC, stats(samples.startRunc)),
    timedRow("server-everything start → initialize, gvisor", stats(samples.startGvisor), { baseline: START_RUNC }),
  ];
}

/** A gateway config with four code runners: pooled and not, under runc and under gVisor. */
function runnerProject() {
  const p = gatewayProject("unused", 0);
  const runner = (pool, runtime) => ({ builtin: "code-runner", languages: ["python"], pool, runtime, timeouts: { runMs: 60_000 } });
  const servers = { prunc: runner(2, "runc"), pgvisor: runner(2, "gvisor"), crunc: runner(0, "runc"), cgvisor: runner(0, "gvisor") };
  fs.writeFileSync(p.config, `import { defineConfig } from "mcpbox";\n\nexport default defineConfig(${JSON.stringify({ servers }, null, 2)});\n`);
  return p;
}

async function timedRun(client, server) {
  const t0 = performance.now();
  const r = await client.callTool({ name: `${server}__run_code`, arguments: { language: "python", code: "print(1)" } }, undefined, { timeout: 120_000 });
  const ms = performance.now() - t0;
  if (r.isError || r.structuredContent?.stdout !== "1\n") throw new Error(`${server} run_code failed: ${JSON.stringify(r.content)}`);
  return ms;
}

/**
 * Until gateway `pid` holds exactly both pools' containers (2 prunc, 2 pgvisor), all running: the last run's and the
 * cold runs' containers removed, both refills started. Then SETTLE_MS more: "running" is the engine's word, the
 * launcher in a refilled container still starts its interpreters (about 0.3 s of CPU under gVisor on a loaded
 * 2-core machine), and a call measured meanwhile would time that start, the other runtime's included (the runc
 * refill overlapped every gVisor call when each call waited for its own pool only). An agent's calls come seconds
 * apart: each call here finds both pools warm and the engine idle.
 */
async function poolsSettled(docker, pid) {
  const filters = JSON.stringify({ label: [`${LABEL.ownerPid}=${pid}`] });
  for (let i = 0; i < 1200; i++) {
    const list = await docker.listContainers({ all: true, filters });
    const of = (server) => list.filter((c) => c.Labels[LABEL.server] === server).length;
    if (list.length === 4 && of("prunc") === 2 && of("pgvisor") === 2 && list.every((c) => c.State === "running")) {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the pools did not fill within 60 s");
}
const SETTLE_MS = 1500;

/** server-everything under `runtime`: create → attach → start → initialize answered, in ms; then stopped. */
async function timedStart(docker, image, runtime) {
  const parsed = UserConfigSchema.parse({ servers: { ev: { image, runtime } } });
  const config = resolveConfig(parsed, path.join(os.tmpdir(), "mcpbox-bench-gvisor.json"));
  const ctx = { session: SESSION, configHash: config.hash, ownerPid: process.pid, image };
  const options = { ...containerOptions(config.servers[0], ctx, {}), name: `${SESSION}-${runtime}-${Math.random().toString(36).slice(2, 8)}` };
  const t0 = performance.now();
  const container = await startServerContainer(docker, options);
  const client = new Client({ name: "bench", version: "1" });
  try {
    await client.connect(container.transport);
    return performance.now() - t0;
  } finally {
    await client.close().catch(() => {});
    await container.stop(1000);
  }
}
