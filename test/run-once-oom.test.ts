/**
 * The OOM report of a one-shot container when the engine's inspect flag is not set (src/docker/run-once.ts): the
 * engine's own oom event for the container is what tells a memory bomb from a plain SIGKILL. Real engine, runc.
 */
import { afterAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { oomEventOf, startOneShot, type OneShot } from "../src/docker/run-once.ts";

const docker = engine();
const IMAGE = "python:3.12-slim-bookworm"; // a local base image (.ci/run loads it)
const started: OneShot[] = [];

async function oneShot(code: string): Promise<{ shot: OneShot; since: number }> {
  const since = Math.floor(Date.now() / 1000) - 1;
  const shot = await startOneShot(docker, {
    Image: IMAGE,
    Cmd: ["python3", "-c", code],
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Labels: { "mcpbox.test": "run-once-oom" },
    HostConfig: { Memory: 64 * 1024 * 1024, MemorySwap: 64 * 1024 * 1024, NetworkMode: "none" },
  });
  shot.stdio.resume();
  started.push(shot);
  return { shot, since };
}

afterAll(async () => {
  await Promise.all(started.map((s) => s.remove()));
});

describe("a one-shot container's OOM report", () => {
  it("finds the engine's oom event of a container the kernel killed for its memory", async () => {
    const { shot, since } = await oneShot("chunks = []\nwhile True:\n    chunks.append('x' * 10_000_000)");
    expect(await shot.exited).toBe(137);
    expect(await oomEventOf(docker, shot.id, since)).toBe(true);
    expect(await shot.state()).toEqual({ exitCode: 137, oomKilled: true });
  }, 60_000);

  it("finds none for a container killed with SIGKILL, and reports it as not out of memory", async () => {
    const { shot, since } = await oneShot("import time\ntime.sleep(60)");
    await new Promise((r) => setTimeout(r, 500));
    await shot.kill();
    expect(await shot.exited).toBe(137);
    expect(await oomEventOf(docker, shot.id, since)).toBe(false);
    expect(await shot.state()).toEqual({ exitCode: 137, oomKilled: false });
    expect(await shot.state({ killedByUs: true })).toEqual({ exitCode: 137, oomKilled: false });
  }, 60_000);
});
