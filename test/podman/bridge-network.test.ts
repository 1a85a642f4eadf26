// `network: "bridge"` through `mcpbox serve` on Podman (as test/bridge-network.test.ts on Docker): each server on a
// network of its own per session, labelled, one bridge server unable to reach another, the networks gone after the
// client closes. Only containers this test made (through its config) are aimed at.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { isAlive } from "../../src/docker/cleanup.ts";
import { LABEL, labelFilter } from "../../src/policy/labels.ts";
import { connect, containersOf, project, REPO, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { nodeBaseImage } from "../helpers/images.ts";
import { expectPodman } from "./_podman.ts";

const FIXTURES = path.join(REPO, "test/fixtures/egress");
const docker = engine();
let p: TestProject;
let gw: Connected | undefined;

/** Runs node code in a container (docker CLI, DOCKER_HOST is Podman's); returns stdout. */
const inContainer = (id: string, code: string, detach = false) =>
  execFileSync("docker", ["exec", ...(detach ? ["-d"] : []), id, "node", "-e", code], { encoding: "utf8", timeout: 15_000 }).trim();

/** "open" or why not: a TCP connect with a short deadline. */
const connectCode = (host: string, port: number) =>
  `const s=require("net").connect(${port},${JSON.stringify(host)});s.setTimeout(1500,()=>{console.log("timeout");process.exit()});` +
  `s.on("connect",()=>{console.log("open");process.exit()});s.on("error",(e)=>{console.log(e.code);process.exit()})`;

beforeAll(async () => {
  await expectPodman();
  const image = await nodeBaseImage(docker);
  const server = { image, command: ["node", "/fixtures/server.mjs"], mounts: [{ source: FIXTURES, target: "/fixtures" }], network: "bridge" };
  p = project({ a: server, b: server });
}, 120_000);

afterAll(async () => {
  await gw?.client.close().catch(() => {});
});

describe('a "bridge" server through mcpbox serve on Podman', () => {
  it("runs on a network of its own, cannot reach another bridge server, and the networks go at close", async () => {
    const g = (gw = await connect(p));
    await g.client.listTools();
    // tools/list may come from the catalog of an earlier run, before the servers are up (issue 15)
    const servers = await waitFor("both servers running", async () => {
      const all = await containersOf(g.pid);
      return all.filter((c) => c.State === "running" && (c.Labels[LABEL.server] === "a" || c.Labels[LABEL.server] === "b")).length === 2 ? all : undefined;
    }, 60_000);
    const of = (name: string) => servers.find((c) => c.Labels[LABEL.server] === name)!;
    const [a, b] = await Promise.all([of("a"), of("b")].map((c) => docker.getContainer(c.Id).inspect()));
    const session = a!.Config.Labels[LABEL.session]!;
    const networkOf = (c: typeof a) => Object.keys(c!.NetworkSettings.Networks);
    for (const c of [a!, b!]) {
      // Podman's inspect says HostConfig.NetworkMode "bridge" for any bridge network, so the network is read from
      // NetworkSettings.Networks (Docker's test compares both)
      const [mode, ...others] = networkOf(c);
      expect(others).toEqual([]);
      expect(mode).toBe(`mcpbox-${session}-${c.Config.Labels[LABEL.server]}-net`);
      const net = await docker.getNetwork(mode!).inspect();
      // not asserted here: Options["com.docker.network.bridge.enable_icc"] == "false". Podman 4.3 (netavark) answers
      // the create with the warning "not a recognized option" and keeps no such option; as each server is alone on
      // its network, the reach between servers is what counts, and is checked below
      expect(net.Labels).toMatchObject({ [LABEL.managed]: "true", [LABEL.session]: session, [LABEL.server]: c.Config.Labels[LABEL.server], [LABEL.ownerPid]: String(gw.pid), [LABEL.configHash]: expect.any(String) });
    }
    expect(networkOf(a)).not.toEqual(networkOf(b));

    const ipA = Object.values(a!.NetworkSettings.Networks)[0]!.IPAddress;
    inContainer(a!.Id, `require("http").createServer((q,s)=>s.end("a")).listen(8080,"0.0.0.0")`, true);
    // the listener is up on A's network address (seen from A itself) ...
    await waitFor("A's listener", () => (inContainer(a!.Id, connectCode(ipA, 8080)) === "open" ? true : undefined), 10_000);
    // ... and B, on a network of its own, cannot reach it
    expect(inContainer(b!.Id, connectCode(ipA, 8080))).not.toBe("open");

    const networks = () => docker.listNetworks({ filters: labelFilter({ [LABEL.session]: session }) });
    expect((await networks()).map((n) => n.Name).sort()).toEqual([...networkOf(a), ...networkOf(b)].sort());
    const pid = gw.pid;
    // end stdin ourselves: the SDK's close() would SIGTERM, then SIGKILL a gateway that takes over 2 s to clean up
    (gw.transport as unknown as { _process: { stdin: NodeJS.WritableStream } })._process.stdin.end();
    await waitFor("the gateway to exit", () => (isAlive(pid) ? undefined : true), 30_000);
    expect(await networks()).toEqual([]);
  }, 90_000);
});
