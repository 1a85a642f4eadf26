/**
 * The built-in code runner: latency of run_code `print(1)` (an SDK Client over InMemoryTransport, as the gateway
 * calls it) with no pool and with a pool of 2 warm containers, next to a plain `docker run --rm` of the same image
 * measured in the same run, interleaved round by round. With a pool, each call starts once the pool is full again
 * (calls a few seconds apart, as an agent makes them); "back to back" calls (measured after) do not wait.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { resolveConfig } from "../../src/config/resolve.ts";
import { engine } from "../../src/docker/engine.ts";
import { ensureRunnerImage } from "../../src/runner/image.ts";
import { createCodeRunnerServer } from "../../src/runner/server.ts";
import { percentile, timedRow } from "./_lib.mjs";

const BASELINE = "docker run --rm --network none (same image, baseline)";
const DOCKER_CLI = ["/usr/local/bin/docker", "/usr/bin/docker"].find((p) => fs.existsSync(p));

export default async function run({ runs = 15 } = {}) {
  if (!DOCKER_CLI) throw new Error("no docker CLI at /usr/local/bin/docker or /usr/bin/docker");
  const docker = engine();
  const bases = resolveConfig({ servers: {} }, "/bench/sandbox.config.ts").build.baseImages;
  const image = await ensureRunnerImage(docker, bases);
  const plainArgs = ["run", "--rm", "--network", "none", "--entrypoint", "python3", image, "-c", "print(1)"];
  const cold = await openRunner(docker, image, 0, "cold");
  const warm = await openRunner(docker, image, 2, "warm");
  const samples = { plain: [], cold: [], warm: [], backToBack: [] };
  try {
    // interleaved rounds: the baseline and the runner see the same machine load
    for (let round = 0; round < runs + 2; round++) {
      const plain = await timeDockerRun(plainArgs);
      const c = await cold.call();
      await poolFull(docker, warm.session, 2);
      const w = await warm.call();
      if (round >= 2) samples.plain.push(plain), samples.cold.push(c), samples.warm.push(w);
    }
    for (let i = 0; i < runs; i++) samples.backToBack.push(await warm.call());
  } finally {
    await cold.close();
    await warm.close();
  }
  const t = (v) => ({ median: percentile(v, 50), p95: percentile(v, 95), samples: v });
  return [
    timedRow(BASELINE, t(samples.plain)),
    timedRow("run_code print(1), no pool", t(samples.cold), { baseline: BASELINE }),
    timedRow("run_code print(1), pool of 2", t(samples.warm), { baseline: BASELINE, goal: { below: 150 } }),
    timedRow("run_code print(1), pool of 2, back to back", t(samples.backToBack), { baseline: BASELINE }),
  ];
}

function timeDockerRun(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(DOCKER_CLI, args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`docker ${args.join(" ")}: ${err}`))));
  });
}

async function openRunner(docker, image, pool, name) {
  const session = `bench-${process.pid}-${name}`;
  const config = resolveConfig(
    { servers: { code: { builtin: "code-runner", pool, languages: ["python"], timeouts: { runMs: 60_000 } } } },
    "/bench/sandbox.config.ts",
  );
  const server = createCodeRunnerServer(config.servers[0], { docker, session, configHash: config.hash, ownerPid: process.pid, image });
  const client = new Client({ name: "bench", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return {
    session,
    async call() {
      const t0 = performance.now();
      const r = await client.callTool({ name: "run_code", arguments: { language: "python", code: "print(1)" } });
      const ms = performance.now() - t0;
      if (r.isError || r.structuredContent?.stdout !== "1\n") throw new Error(`run_code failed: ${JSON.stringify(r.content)}`);
      return ms;
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** Until the session has `pool` running containers and nothing else (the last run's container removed). */
async function poolFull(docker, session, pool) {
  for (let i = 0; i < 600; i++) {
    const list = await docker.listContainers({ all: true, filters: { label: [`mcpbox.session=${session}`] } });
    if (list.length === pool && list.every((c) => c.State === "running")) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the pool did not fill within 30 s");
}
