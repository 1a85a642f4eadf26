/**
 * The monitor's container figures against the real engine: CPU % of a busy container, memory against its limit,
 * pids, and an OOM kill seen after the fact.
 */
import { afterAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { StatsSampler } from "../src/docker/stats.ts";
import { waitFor } from "./helpers/gateway.ts";
import { nodeBaseImage } from "./helpers/images.ts";

const LABEL = "mcpbox.monitor-stats-test";
const MiB = 1024 * 1024;

afterAll(async () => {
  const mine = await engine().listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL}=${process.pid}`] }) });
  await Promise.all(mine.map((c) => engine().getContainer(c.Id).remove({ force: true })));
});

async function runNode(script: string, memoryMiB: number) {
  const container = await engine().createContainer({
    Image: await nodeBaseImage(),
    Cmd: ["node", "-e", script],
    Labels: { [LABEL]: String(process.pid) },
    HostConfig: { Memory: memoryMiB * MiB, MemorySwap: memoryMiB * MiB, PidsLimit: 64, NetworkMode: "none" },
  });
  await container.start();
  return container;
}

describe("StatsSampler", () => {
  it("reports CPU %, memory against the limit and pids of a busy container", async () => {
    const c = await runNode("let x = 0; setInterval(() => { for (let i = 0; i < 2e7; i++) x += i; }, 5)", 128);
    const sampler = new StatsSampler();
    await sampler.sample(c.id);
    await new Promise((r) => setTimeout(r, 1500));
    const figures = await sampler.sample(c.id);
    expect(figures).toBeDefined();
    expect(figures!.cpuPercent).toBeGreaterThan(5);
    expect(figures!.memoryLimitBytes).toBe(128 * MiB);
    expect(figures!.memoryBytes).toBeGreaterThan(5 * MiB);
    expect(figures!.memoryBytes).toBeLessThan(128 * MiB);
    expect(figures!.pids).toBeGreaterThanOrEqual(1);
    expect(figures!.oomKilled).toBe(false);
  });

  it("sees an OOM kill", async () => {
    const c = await runNode("const a = []; setInterval(() => a.push(Buffer.alloc(8 << 20, 1)), 20)", 64);
    await waitFor("the container to be killed", async () => ((await c.inspect()).State.Running ? undefined : true), 60_000);
    const figures = await new StatsSampler().sample(c.id);
    expect(figures?.oomKilled).toBe(true);
  });

  it("says nothing of a container that does not exist", async () => {
    expect(await new StatsSampler().sample("mcpbox-no-such-container")).toBeUndefined();
  });
});
