/**
 * SPEC 4.2 while servers start before the client has come: on SIGINT or SIGTERM at any moment every container of the
 * gateway is removed before it exits, and `initialize` is answered without waiting for an image build (at most
 * INITIALIZE_WAIT_MS for eager servers: some clients give initialize 30 s). One server runs at once, another needs a
 * build that takes long: serve must not treat "still starting" as "nothing of mine exists yet".
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { nodeBaseImage } from "../helpers/images.ts";
import { connect, containersOf, FIXTURES, mcpboxCommand, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";

let node: string;
const children: ChildProcessWithoutNullStreams[] = [];
const open: Connected[] = [];
beforeAll(async () => {
  node = await nodeBaseImage();
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.client.close().catch(() => {});
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

const rawServer = () => ({ image: node, command: ["node", "/fixture/raw-server.mjs"], mounts: [{ source: FIXTURES, target: "/fixture" }] });

/** A project with a server that runs at once and one whose build sleeps `seconds` (a step no cache has), then marks its end. */
function slowProject(seconds: number): { p: TestProject; sleeping: string; done: string } {
  const tag = randomBytes(8).toString("hex");
  const p = project({ quick: rawServer(), slow: { build: { context: "./ctx" } } });
  fs.mkdirSync(path.join(p.dir, "ctx"), { mode: 0o755 });
  const sleeping = `RUN echo sleeping-${tag} && sleep ${seconds}`;
  const done = `RUN echo done-${tag}`;
  fs.writeFileSync(path.join(p.dir, "ctx/Dockerfile"), `FROM ${node}\n${sleeping}\n${done}\nENTRYPOINT ["node", "-e", "setInterval(() => {}, 1000)"]\n`);
  return { p, sleeping, done };
}

describe("serve while a server builds and another runs (SPEC 4.2)", () => {
  it("removes the running server's container on SIGTERM before it exits, build still going", async () => {
    const { p, sleeping } = slowProject(60);
    const { command, args } = mcpboxCommand();
    const child = spawn(command, [...args, "serve", "-c", p.config], { cwd: p.dir, env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" } });
    children.push(child);
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    await waitFor("the slow build step", () => stderr.includes(sleeping) || undefined, 60_000);
    await waitFor("the quick server's container running", async () => ((await containersOf(child.pid!)).some((c) => c.State === "running") ? true : undefined), 60_000);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    // nothing of this gateway may be left for the reaper to find later
    expect((await containersOf(child.pid!)).map((c) => `${c.Labels["mcpbox.server"]} ${c.State}`), stderr).toEqual([]);
  });

  it("answers initialize while the other server's image is still building", async () => {
    const { p, done } = slowProject(45);
    const c = await connect(p); // resolves once initialize is answered
    open.push(c);
    expect(c.stderr(), "initialize waited for the whole build").not.toContain(done);
  });
});
