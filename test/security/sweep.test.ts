/**
 * SPEC 4.2: "the next mcpbox start removes anything left with a dead owner". A gateway killed outright whose reaper
 * died too (the whole process tree killed, a reboot of the user's session) leaves its containers running, with their
 * mounts and network: the next `serve` sweeps them before it serves, whether or not any of its own servers starts.
 * Real engine, the SDK client spawning dist/mcpbox.
 */
import os from "node:os";
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { containerLabels } from "../../src/policy/labels.ts";
import { connect, project, waitFor, type Connected } from "../helpers/gateway.ts";

const IMAGE = "mcpbox-test/everything:latest";
const open: Connected[] = [];
const made: string[] = [];
afterAll(async () => {
  for (const c of open.splice(0)) await c.client.close().catch(() => {});
  for (const id of made) await engine().getContainer(id).remove({ force: true }).catch(() => {});
});

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((r) => child.once("exit", r));
  return child.pid!;
}

const gone = (id: string) => engine().getContainer(id).inspect().then(() => false, (e: { statusCode?: number }) => e.statusCode === 404);

describe("the start-up sweep (SPEC 4.2)", () => {
  it("removes a dead gateway's container at serve's start even when none of its own servers starts (all lazy)", async () => {
    const labels = containerLabels({ session: `hrev-sweep-${process.pid}`, server: "left", ownerPid: await deadPid(), configHash: "x", ownerHost: os.hostname() });
    const left = await engine().createContainer({ Image: IMAGE, Labels: labels, Cmd: ["true"] });
    made.push(left.id);
    expect(await gone(left.id)).toBe(false);
    const p = project({ lazy: { image: IMAGE, startup: "lazy" } });
    const c = await connect(p);
    open.push(c);
    // initialize was answered; no call, so the lazy server never starts: the sweep must not wait for a start
    await waitFor("the dead owner's container to be swept", async () => ((await gone(left.id)) ? true : undefined), 20_000);
  });
});
