// `network: "bridge"` through `mcpbox serve` (SPEC 2.2): full egress, but each server on a network of its own per
// session, inter-container traffic off, so one bridge server cannot reach another; the networks carry the session's
// labels and are gone after the client closes. Only containers this test made (through its config) are aimed at.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { LABEL, labelFilter } from "../src/policy/labels.ts";
import { connect, containersOf, project, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";
import { nodeBaseImage } from "./helpers/images.ts";

const FIXTURES = path.resolve(import.meta.dirname, "fixtures/egress");
const docker = engine();
let p: TestProject;
let gw: Connected | undefined;

const alive = (pid: number) => spawnSync("kill", ["-0", String(pid)]).status === 0;

/** Runs node code in a container as its own user; returns stdout. */
const inContainer = (id: string, code: string, detach = false) =>
  execFileSync("docker", ["exec", ...(detach ? ["-d"] : []), id, "node", "-e", code], { encoding: "utf8", timeout: 15_000 }).trim();

/** "open" or why not: a TCP connect with a short deadline (ICC off drops the packets, so a refusal is a timeout). */
const connectCode = (host: string, port: number) =>
  `const s=require("net").connect(${port},${JSON.stringify(host)});s.setTimeout(1500,()=>{console.log("timeout");process.exit()});` +
  `s.on("connect",()=>{console.log("open");process.exit()});s.on("error",(e)=>{console.log(e.code);process.exit()})`;

beforeAll(async () => {
  const image = await nodeBaseImage(docker);
  const server = { image, command: ["node", "/fixtures/server.mjs"], mounts: [{ source: FIXTURES, target: "/fixtures" }], network: "bridge" };
  p = project({ a: server, b: server });
}, 120_000);

afterAll(async () => {
  await gw?.client.close().catch(() => {});
  fs.rmSync(p.dir, { recursive: true, force: true });
});

const bothRunning = (pid: number) =>
  waitFor("both servers running", async () => ((await containersOf(pid)).filter((c) => c.State === "running").length === 2 ? true : undefined), 60_000);

describe('a "bridge" server through mcpbox serve', () => {
  it("runs on a network of its own with ICC off, cannot reach another bridge server, and the networks go at close", async () => {
    gw = await connect(p);
    await gw.client.listTools();
    await bothRunning(gw.pid); // tools/list may come from the catalog of an earlier run (issue 15)
    const servers = await containersOf(gw.pid);
    const of = (name: string) => servers.find((c) => c.Labels[LABEL.server] === name)!;
    const [a, b] = await Promise.all([of("a"), of("b")].map((c) => docker.getContainer(c.Id).inspect()));
    const session = a!.Config.Labels[LABEL.session]!;

    for (const c of [a!, b!]) {
      const mode = c.HostConfig.NetworkMode!;
      expect(mode).not.toBe("bridge");
      expect(Object.keys(c.NetworkSettings.Networks)).toEqual([mode]);
      const net = await docker.getNetwork(mode).inspect();
      expect(net.Options?.["com.docker.network.bridge.enable_icc"]).toBe("false");
      expect(net.Labels).toMatchObject({ [LABEL.managed]: "true", [LABEL.session]: session, [LABEL.server]: c.Config.Labels[LABEL.server], [LABEL.ownerPid]: String(gw.pid), [LABEL.configHash]: expect.any(String) });
    }
    expect(a!.HostConfig.NetworkMode).not.toBe(b!.HostConfig.NetworkMode);

    const ipA = Object.values(a!.NetworkSettings.Networks)[0]!.IPAddress;
    inContainer(a!.Id, `require("http").createServer((q,s)=>s.end("a")).listen(8080,"0.0.0.0")`, true);
    // the listener is up on A's network address (seen from A itself) ...
    await waitFor("A's listener", () => (inContainer(a!.Id, connectCode(ipA, 8080)) === "open" ? true : undefined), 10_000);
    // ... and B, on a network of its own, cannot reach it
    expect(inContainer(b!.Id, connectCode(ipA, 8080))).not.toBe("open");

    const networks = () => docker.listNetworks({ filters: labelFilter({ [LABEL.session]: session }) });
    expect((await networks()).map((n) => n.Name).sort()).toEqual([a!.HostConfig.NetworkMode, b!.HostConfig.NetworkMode].sort());
    // end stdin ourselves: the SDK's close() would SIGTERM, then SIGKILL a gateway that takes over 2 s to clean up
    const pid = gw.pid;
    (gw.transport as unknown as { _process: { stdin: NodeJS.WritableStream } })._process.stdin.end();
    await waitFor("the gateway to exit", () => (alive(pid) ? undefined : true), 30_000);
    expect(await networks()).toEqual([]);
  }, 90_000);

  it("leaves no network of a SIGKILLed gateway after 10 s (the reaper, by the session's labels)", async () => {
    gw = await connect(p);
    await gw.client.listTools();
    await bothRunning(gw.pid); // tools/list may come from the catalog of an earlier run (issue 15)
    const session = (await containersOf(gw.pid))[0]!.Labels[LABEL.session]!;
    const networks = () => docker.listNetworks({ filters: labelFilter({ [LABEL.session]: session }) });
    expect(await networks()).toHaveLength(2);
    process.kill(gw.pid, "SIGKILL");
    // SPEC 4.2: nothing outlives the gateway by more than 10 s
    await waitFor("the session's networks gone", async () => ((await networks()).length === 0 ? true : undefined), 10_000);
  }, 90_000);
});
