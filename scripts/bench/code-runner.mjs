/**
 * The built-in code runner: latency of run_code `print(1)` (an SDK Client over InMemoryTransport, as the gateway
 * calls it) with no pool and with a pool of 2 warm containers, next to a plain `docker run --rm` of the same image
 * measured in the same run. With a pool, each call starts once the pool is full again (calls a few seconds apart,
 * as an agent makes them); "back to back" calls do not wait.
 */
import fs from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { resolveConfig } from "../../src/config/resolve.ts";
import { engine } from "../../src/docker/engine.ts";
import { ensureRunnerImage } from "../../src/runner/image.ts";
import { createCodeRunnerServer } from "../../src/runner/server.ts";
import { percentile, timeCommand, timedRow } from "./_lib.mjs";

const BASELINE = "docker run --rm (same image, baseline)";
const DOCKER_CLI = ["/usr/local/bin/docker", "/usr/bin/docker"].find((p) => fs.existsSync(p));

export default async function run({ runs = 15 } = {}) {
  if (!DOCKER_CLI) throw new Error("no docker CLI at /usr/local/bin/docker or /usr/bin/docker");
  const docker = engine();
  const bases = resolveConfig({ servers: {} }, "/bench/sandbox.config.ts").build.baseImages;
  const image = await ensureRunnerImage(docker, bases);
  const plain = timeCommand(DOCKER_CLI, ["run", "--rm", "--entrypoint", "python3", image, "-c", "print(1)"], { runs, warmup: 2 });
  const cold = await timeRunner(docker, image, { pool: 0, runs });
  const warm = await timeRunner(docker, image, { pool: 2, runs, waitForPool: true });
  const backToBack = await timeRunner(docker, image, { pool: 2, runs, waitForPool: false });
  return [
    timedRow(BASELINE, plain),
    timedRow("run_code print(1), no pool", cold, { baseline: BASELINE }),
    timedRow("run_code print(1), pool of 2", warm, { baseline: BASELINE, goal: { below: 150 } }),
    timedRow("run_code print(1), pool of 2, back to back", backToBack, { baseline: BASELINE }),
  ];
}

async function timeRunner(docker, image, { pool, runs, waitForPool = false }) {
  const session = `bench-${process.pid}-${pool}-${waitForPool ? "w" : "b"}`;
  const config = resolveConfig(
    { servers: { code: { builtin: "code-runner", pool, languages: ["python"], timeouts: { runMs: 60_000 } } } },
    "/bench/sandbox.config.ts",
  );
  const server = createCodeRunnerServer(config.servers[0], { docker, session, configHash: config.hash, ownerPid: process.pid, image });
  const client = new Client({ name: "bench", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  try {
    const once = async () => {
      if (waitForPool) await poolFull(docker, session, pool);
      const t0 = performance.now();
      const r = await client.callTool({ name: "run_code", arguments: { language: "python", code: "print(1)" } });
      const ms = performance.now() - t0;
      if (r.isError || r.structuredContent?.stdout !== "1\n") throw new Error(`run_code failed: ${JSON.stringify(r.content)}`);
      return ms;
    };
    for (let i = 0; i < 2; i++) await once();
    const samples = [];
    for (let i = 0; i < runs; i++) samples.push(await once());
    return { median: percentile(samples, 50), p95: percentile(samples, 95), samples };
  } finally {
    await client.close();
    await server.close();
  }
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
