/**
 * The monitor's container figures against Podman's Docker API (as test/monitor-stats.test.ts on Docker): CPU % of a
 * busy container, memory against its limit, pids, and an OOM kill seen after the fact.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { StatsSampler } from "../../src/docker/stats.ts";
import { nodeBaseImage } from "../helpers/images.ts";
import { ULIMITS } from "../../src/policy/run.ts";
import { expectPodman } from "./_podman.ts";

const LABEL = "mcpbox.monitor-stats-test";
const MiB = 1024 * 1024;

beforeAll(expectPodman);

afterAll(async () => {
  const mine = await engine().listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL}=${process.pid}`] }) });
  await Promise.all(mine.map((c) => engine().getContainer(c.Id).remove({ force: true })));
});

async function runNode(script: string, memoryMiB: number) {
  const container = await engine().createContainer({
    Image: await nodeBaseImage(),
    Cmd: ["node", "-e", script],
    Labels: { [LABEL]: String(process.pid) },
    // explicit rlimits, as mcpbox's own containers have: without them Podman sets nofile/nproc above what this
    // machine allows and the create fails ("error setting rlimits ... operation not permitted")
    HostConfig: { Memory: memoryMiB * MiB, MemorySwap: memoryMiB * MiB, PidsLimit: 64, NetworkMode: "none", Ulimits: ULIMITS.map((u) => ({ ...u })) },
  });
  await container.start();
  return container;
}

describe("StatsSampler on Podman", () => {
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

  // Not asserted on Podman: "sees an OOM kill". Podman 4.3 here (cgroup v1, cgroupfs, conmon 2.1.6) reports
  // State.OOMKilled false for a container the kernel killed at its memory limit (exit 137; measured with a plain
  // `docker run --memory 64m` through its API too), and its stats of the stopped container are empty, so neither the
  // monitor nor a server's exit reason can tell an OOM kill on Podman. The code runner can: its launcher counts the
  // kills itself (test/podman/code-runner.test.ts "reports a memory bomb as out of memory").

  it("says nothing of a container that does not exist", async () => {
    expect(await new StatsSampler().sample("mcpbox-no-such-container")).toBeUndefined();
  });
});
