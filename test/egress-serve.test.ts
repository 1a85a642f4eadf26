// An allowlisted server through `mcpbox serve` (SPEC 10, 4.7, 4.2): the gateway starts its egress proxy and
// forwarder, the server reaches the allowed test host over HTTPS and HTTP and is refused another, each connection is
// an audit line, and nothing of the session (containers, network, volume) is left after a close or a SIGKILL.
// Only hosts this test creates: two containers on a test network in a documentation range (198.51.100.0/24), found
// by the proxy through the engine's DNS under the aliases good.test and other.test; MCPBOX_TEST_EGRESS_NETWORKS
// attaches each proxy to that network besides its own.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { LABEL, labelFilter } from "../src/policy/labels.ts";
import { TEST_NETWORKS_ENV } from "../src/gateway/egress.ts";
import { connectGateway } from "../src/monitor/client.ts";
import { socketPath } from "../src/monitor/paths.ts";
import type { GatewayMessage } from "../src/monitor/protocol.ts";
import { auditLines, connect, containersOf, mcpboxCommand, project, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";
import { nodeBaseImage } from "./helpers/images.ts";

const SECRET = "Egress-S3cret-Value-4242"; // a URL lower-cases it in the host name: redacted all the same
const FIXTURES = path.resolve(import.meta.dirname, "fixtures/egress");
const TEST_LABEL = "mcpbox.test.egress-serve";
const run = `${process.pid}-${Date.now().toString(36)}`;
const NET = { name: `mcpbox-egress-serve-test-${run}`, subnet: "198.51.100.0/24", gateway: "198.51.100.1", good: "198.51.100.10", other: "198.51.100.20" };
/** a private network (the engine's default pool): the good host is on it too, as rebind.test */
const PRIV = `mcpbox-egress-serve-test-priv-${run}`;
const docker = engine();
const cleanup: Array<() => Promise<unknown>> = [];
const open: Connected[] = [];
let p: TestProject;
let hostService: net.Server;
let hostPort = 0;
let hostHits = 0;

async function removeLeftovers(): Promise<void> {
  const filters = JSON.stringify({ label: [TEST_LABEL] });
  for (const c of await docker.listContainers({ all: true, filters })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
  for (const n of await docker.listNetworks({ filters })) await docker.getNetwork(n.Id).remove().catch(() => {});
  for (const v of (await docker.listVolumes({ filters })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => {});
}

function selfSignedCert(dir: string): { cert: string; key: string } {
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=good.test",
    "-addext", "subjectAltName=DNS:good.test,DNS:other.test", "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")], { stdio: "ignore" });
  const out = { cert: fs.readFileSync(path.join(dir, "cert.pem"), "utf8"), key: fs.readFileSync(path.join(dir, "key.pem"), "utf8") };
  fs.rmSync(path.join(dir, "key.pem"));
  return out;
}

async function testHost(name: string, image: string, ip: string, cert: { cert: string; key: string }, also?: { network: string; alias: string }): Promise<void> {
  const c = await docker.createContainer({
    name: `mcpbox-egress-serve-test-${name}-${run}`,
    Image: image,
    User: "1000:1000",
    Cmd: ["node", "/fixtures/host.mjs"],
    Env: [`NAME=${name}`, `CERT=${cert.cert}`, `KEY=${cert.key}`],
    Labels: { [TEST_LABEL]: run },
    HostConfig: { NetworkMode: NET.name, Binds: [`${FIXTURES}:/fixtures:ro`], Sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" }, CapDrop: ["ALL"] },
    NetworkingConfig: { EndpointsConfig: { [NET.name]: { IPAMConfig: { IPv4Address: ip }, Aliases: [`${name}.test`, ...(name === "other" ? ["echo.test"] : [])] } } },
  });
  cleanup.push(() => c.remove({ force: true }));
  if (also) await docker.getNetwork(also.network).connect({ Container: c.id, EndpointConfig: { Aliases: [also.alias] } });
  await c.start();
}

/** Containers, networks and volumes of a gateway session. */
async function sessionObjects(session: string): Promise<string[]> {
  const filters = labelFilter({ [LABEL.session]: session });
  const [containers, networks, volumes] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listNetworks({ filters }),
    docker.listVolumes({ filters }),
  ]);
  return [...containers.map((c) => `container ${c.Names[0]}`), ...networks.map((n) => `network ${n.Name}`), ...(volumes.Volumes ?? []).map((v) => `volume ${v.Name}`)];
}

async function start(): Promise<{ gw: Connected; session: string }> {
  const gw = await connect(p, { env: { [TEST_NETWORKS_ENV]: `${NET.name},${PRIV}`, EGRESS_TEST_TOKEN: SECRET } });
  open.push(gw);
  await gw.client.listTools();
  // tools/list may come from the catalog of an earlier run (issue 15): the server's container, its egress before it
  const up = async () => ((await containersOf(gw.pid)).some((c) => c.Labels[LABEL.server] === "web" && !c.Labels["mcpbox.egress"] && c.State === "running") ? true : undefined);
  await waitFor("the server running", up, 60_000);
  const session = (await containersOf(gw.pid))[0]!.Labels[LABEL.session]!;
  return { gw, session };
}

const tool = async (gw: Connected, name: string, args: Record<string, unknown>) => {
  const r = (await gw.client.callTool({ name: `web__${name}`, arguments: args })) as { content: Array<{ text: string }> };
  return r.content[0]!.text;
};
const fetchText = (gw: Connected, url: string) => tool(gw, "fetch", { url });

beforeAll(async () => {
  await removeLeftovers();
  const image = await nodeBaseImage(docker);
  p = project({});
  const ca = path.join(p.dir, "ca");
  fs.mkdirSync(ca, { mode: 0o755 });
  const cert = selfSignedCert(ca);
  fs.chmodSync(path.join(ca, "cert.pem"), 0o644);
  fs.writeFileSync(p.config, JSON.stringify({ servers: { web: {
    image,
    command: ["node", "/fixtures/server.mjs"],
    mounts: [{ source: FIXTURES, target: "/fixtures" }, { source: "./ca", target: "/ca" }],
    env: { NODE_EXTRA_CA_CERTS: "/ca/cert.pem" },
    secrets: { TOKEN: { env: "EGRESS_TEST_TOKEN" } },
    network: { allow: ["good.test", "rebind.test", "echo.test:7000"] },
    timeouts: { startupMs: 60_000, callMs: 30_000 },
  } } }, null, 2));
  await docker.createNetwork({ Name: NET.name, Driver: "bridge", Labels: { [TEST_LABEL]: run }, IPAM: { Config: [{ Subnet: NET.subnet, Gateway: NET.gateway }] } });
  cleanup.push(() => docker.getNetwork(NET.name).remove());
  await docker.createNetwork({ Name: PRIV, Driver: "bridge", Labels: { [TEST_LABEL]: run } });
  cleanup.push(() => docker.getNetwork(PRIV).remove());
  await Promise.all([testHost("good", image, NET.good, cert, { network: PRIV, alias: "rebind.test" }), testHost("other", image, NET.other, cert)]);
  hostService = net.createServer((c) => {
    hostHits++;
    c.end("host-secret");
  });
  hostPort = await new Promise<number>((r) => hostService.listen(0, "0.0.0.0", () => r((hostService.address() as net.AddressInfo).port)));
}, 120_000);

afterAll(async () => {
  hostService?.close();
  for (const c of open.splice(0)) await c.client.close().catch(() => {});
  for (const undo of cleanup.reverse()) await undo().catch(() => {});
  fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("an allowlisted server through mcpbox serve (SPEC 10)", () => {
  it("reaches the allowed host over HTTPS and HTTP, is refused another, each an egress audit line; close leaves nothing", async () => {
    const { gw, session } = await start();
    const server = (await containersOf(gw.pid)).find((c) => c.Labels[LABEL.server] === "web" && !c.Labels["mcpbox.egress"])!;
    const info = await docker.getContainer(server.Id).inspect();
    expect(info.HostConfig.NetworkMode).toMatch(/^container:[0-9a-f]{64}$/); // the forwarder's namespace, nothing else
    expect(info.Config.Env).toContain("HTTPS_PROXY=http://127.0.0.1:3128");
    expect((await containersOf(gw.pid)).map((c) => c.Labels["mcpbox.egress"]).sort()).toEqual(["forward", "proxy", undefined]);

    expect(await fetchText(gw, "https://good.test/hello")).toBe("200 good /hello"); // TLS tunnelled: the server's CA, not ours
    expect(await fetchText(gw, "http://good.test/plain")).toBe("200 good /plain");
    expect(await fetchText(gw, "https://other.test/")).toMatch(/^error: /);
    expect(await fetchText(gw, `https://${SECRET}.other.test/`)).toMatch(/^error: /); // a secret spelled into a name

    const egress = () => auditLines(p).filter((l) => l.method === "egress" && l.session === session);
    await waitFor("the egress audit lines", () => (egress().length >= 4 ? true : undefined), 10_000);
    expect(JSON.stringify(auditLines(p)).toLowerCase()).not.toContain(SECRET.toLowerCase());
    expect(egress()).toContainEqual(expect.objectContaining({ host: "[redacted].other.test", outcome: "denied" }));
    expect(egress()).toEqual(expect.arrayContaining([
      expect.objectContaining({ server: "web", host: "good.test", port: 443, outcome: "ok", bytesUp: expect.any(Number), bytesDown: expect.any(Number), duration: expect.any(Number) }),
      expect.objectContaining({ server: "web", host: "other.test", port: 443, outcome: "denied", reason: "not on the allowlist" }),
    ]));
    expect(egress().find((l) => l.host === "good.test" && l.port === 443)!.bytesDown as number).toBeGreaterThan(500);

    // the monitor (SPEC 6) sees the same connections: a count per server and the last denied hosts, redacted
    const snapshot = await new Promise<Extract<GatewayMessage, { type: "snapshot" }>>((resolve, reject) => {
      connectGateway(socketPath(session, p.home), {
        onMessage: (m) => m.type === "snapshot" && resolve(m),
        onClose: () => reject(new Error("the monitor socket closed before its snapshot")),
      }).then((c) => cleanup.push(async () => c.close()), reject);
    });
    expect(snapshot.servers.find((s) => s.server === "web")).toMatchObject({ egress: egress().length, egressDenied: 2 });
    expect((snapshot.denied ?? []).map((d) => `${d.server} ${d.host}:${d.port} ${d.outcome}`).sort()).toEqual([
      "web [redacted].other.test:443 denied", "web other.test:443 denied",
    ]);
    expect(JSON.stringify(snapshot).toLowerCase()).not.toContain(SECRET.toLowerCase());

    expect((await sessionObjects(session)).filter((o) => !o.startsWith("container"))).toEqual(expect.arrayContaining([
      expect.stringMatching(/^network .*-egress$/), expect.stringMatching(/^volume .*-egress$/),
    ]));
    // end stdin ourselves: the SDK's close() would SIGTERM, then SIGKILL a gateway that takes over 2 s to clean up
    (gw.transport as unknown as { _process: { stdin: NodeJS.WritableStream } })._process.stdin.end();
    await waitFor("the gateway to exit", () => (alive(gw.pid) ? undefined : true), 30_000);
    expect(await sessionObjects(session)).toEqual([]);
  }, 90_000);

  it("has no way out but its list: a private address behind a name, a port, a direct IP, the host, DNS; a TCP forward works", async () => {
    const { gw, session } = await start();
    const egress = () => auditLines(p).filter((l) => l.method === "egress" && l.session === session);
    const privGateway = ((await docker.getNetwork(PRIV).inspect()) as { IPAM: { Config: Array<{ Gateway: string }> } }).IPAM.Config[0]!.Gateway;
    const ownNetwork = (await sessionObjects(session)).find((o) => o.startsWith("network "))!.slice("network ".length);
    const ownGateway = ((await docker.getNetwork(ownNetwork).inspect()) as { IPAM: { Config: Array<{ Gateway: string }> } }).IPAM.Config[0]!.Gateway;

    expect(await tool(gw, "interfaces", {})).toBe('["lo"]'); // no device but loopback
    expect(await fetchText(gw, "https://good.test/ok")).toBe("200 good /ok");
    // rebind.test is listed, but the proxy resolves it to the good host's private address: refused after resolution
    expect(await fetchText(gw, "https://rebind.test/")).toMatch(/^error: /);
    expect(await fetchText(gw, "https://good.test:8443/")).toMatch(/^error: /); // a listed host, a port that is not
    expect(await tool(gw, "tcp", { host: NET.good, port: 443, payload: "x" })).toMatch(/^error: (ENETUNREACH|EHOSTUNREACH|timeout)/);
    for (const address of [NET.gateway, privGateway, ownGateway, "172.17.0.1"]) {
      expect(await tool(gw, "tcp", { host: address, port: hostPort, payload: "x" }), address).toMatch(/^error: (ENETUNREACH|EHOSTUNREACH|timeout)/);
    }
    expect(hostHits).toBe(0);
    expect(await tool(gw, "dns", { name: "good.test" })).toMatch(/^error: (ENOTFOUND|EAI_AGAIN)/);
    expect(await tool(gw, "tcp", { host: "echo.test", port: 7000, payload: "echo-me-123" })).toBe("echo-me-123");

    await waitFor("the egress audit lines", () => (egress().length >= 4 ? true : undefined), 10_000);
    expect(egress()).toEqual(expect.arrayContaining([
      expect.objectContaining({ host: "good.test", port: 443, outcome: "ok" }),
      expect.objectContaining({ host: "rebind.test", port: 443, outcome: "denied", reason: expect.stringMatching(/\(private\), refused unless an entry names that address/) }),
      expect.objectContaining({ host: "good.test", port: 8443, outcome: "denied", reason: "not on the allowlist" }),
      expect.objectContaining({ host: "echo.test", port: 7000, outcome: "ok", bytesUp: 11, bytesDown: 11 }),
    ]));
    // the direct, host and DNS attempts never reached the proxy: nothing else was recorded
    expect(egress().map((l) => `${l.host}:${l.port}`).sort()).toEqual(["echo.test:7000", "good.test:443", "good.test:8443", "rebind.test:443"]);
  }, 90_000);

  it("runs the server with no network but its forwarder's loopback, and the proxy hardened, its socket for uid 1000 alone", async () => {
    const { gw, session } = await start();
    const mine = await containersOf(gw.pid);
    const inspect = (role: string | undefined) => docker.getContainer(mine.find((c) => c.Labels["mcpbox.egress"] === role)!.Id).inspect();
    const [server, forwarder, proxy] = await Promise.all([inspect(undefined), inspect("forward"), inspect("proxy")]);
    expect(server.HostConfig.NetworkMode).toBe(`container:${forwarder.Id}`);
    expect(server.NetworkSettings.Networks).toEqual({});
    expect(forwarder.HostConfig.NetworkMode).toBe("none");
    expect(forwarder.NetworkSettings.Networks).toEqual({ none: expect.anything() });
    const volume = (await sessionObjects(session)).find((o) => o.startsWith("volume "))!.slice("volume ".length);
    expect(server.Mounts.map((m) => m.Name)).not.toContain(volume); // the proxy's socket is not the server's to reach
    expect(forwarder.Mounts.map((m) => m.Name)).toContain(volume);

    for (const c of [proxy, forwarder]) {
      expect(c.Config.User).toBe("1000:1000");
      expect(c.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ["ALL"], SecurityOpt: ["no-new-privileges"], Init: true, PidsLimit: 64, Privileged: false });
      expect(c.HostConfig.Memory).toBeGreaterThan(0);
      expect(c.HostConfig.Memory).toBe(c.HostConfig.MemorySwap);
      expect(c.HostConfig.NanoCpus).toBeGreaterThan(0);
      expect(c.HostConfig.CapAdd ?? []).toEqual([]);
    }
    const own = (await sessionObjects(session)).find((o) => o.startsWith("network "))!.slice("network ".length);
    expect(Object.keys(proxy.NetworkSettings.Networks).sort()).toEqual([own, NET.name, PRIV].sort()); // the test's networks too (MCPBOX_TEST_EGRESS_NETWORKS)
    expect((await docker.getNetwork(own).inspect()).Options).toMatchObject({ "com.docker.network.bridge.enable_icc": "false" });

    // the socket folder and the socket: uid 1000 only (seen from a container that mounts the volume read-only)
    const image = await nodeBaseImage(docker);
    const look = await docker.createContainer({
      Image: image, Cmd: ["stat", "-c", "%a %u %F", "/egress", "/egress/web.sock"], Labels: { [TEST_LABEL]: run }, Tty: true,
      HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: volume, Target: "/egress", ReadOnly: true }] },
    });
    cleanup.push(() => look.remove({ force: true }));
    await look.start();
    await look.wait();
    const seen = (await look.logs({ stdout: true, stderr: true })).toString("utf8").trim().split("\n").map((l) => l.trim());
    expect(seen).toEqual(["700 1000 directory", "600 1000 socket"]);
    await look.remove({ force: true });
  }, 90_000);

  it("leaves no container, network or volume of a SIGKILLed gateway after 10 s", async () => {
    const { gw, session } = await start();
    expect(await fetchText(gw, "https://good.test/again")).toBe("200 good /again");
    expect((await sessionObjects(session)).length).toBeGreaterThanOrEqual(5); // server, proxy, forwarder, network, volume
    process.kill(gw.pid, "SIGKILL");
    // SPEC 4.2: none outlives the gateway by more than 10 s
    await waitFor("the session's objects gone", async () => ((await sessionObjects(session)).length === 0 ? true : undefined), 10_000);
  }, 90_000);

  it("restarts the server with a fresh egress when its proxy dies (its connections fail closed meanwhile)", async () => {
    const { gw } = await start();
    // a call, so the server is up in the gateway and not only its container (tools/list may come from the catalog of
    // an earlier run): a proxy that dies during a server's first start fails that start, it is not a restart
    expect(await fetchText(gw, "https://good.test/before")).toBe("200 good /before");
    const proxyOf = async () => (await containersOf(gw.pid)).find((c) => c.Labels["mcpbox.egress"] === "proxy" && c.State === "running");
    const first = (await proxyOf())!;
    await docker.getContainer(first.Id).kill();
    const second = await waitFor("a new proxy", async () => {
      const p2 = await proxyOf();
      return p2 && p2.Id !== first.Id ? p2 : undefined;
    }, 30_000);
    expect(second.Labels[LABEL.session]).toBe(first.Labels[LABEL.session]);
    const answer = await waitFor("the allowed host again", async () => {
      const t = await fetchText(gw, "https://good.test/back").catch(() => undefined);
      return t?.startsWith("200") ? t : undefined;
    }, 30_000);
    expect(answer).toBe("200 good /back");
    expect(await docker.getContainer(first.Id).inspect().then(() => "left", () => "gone")).toBe("gone");
  }, 90_000);

  it("sweeps, at start-up, the networks and volumes a gateway that is gone left behind", async () => {
    const dead = spawnSync("true").pid!; // a pid whose process has exited
    const session = `sweep-${run}`;
    const Labels = { [LABEL.managed]: "true", [LABEL.session]: session, [LABEL.ownerPid]: String(dead), [LABEL.ownerHost]: os.hostname(), [TEST_LABEL]: run };
    await docker.createNetwork({ Name: `mcpbox-${session}-egress`, Driver: "bridge", Labels });
    await docker.createVolume({ Name: `mcpbox-${session}-egress`, Labels });
    cleanup.push(() => docker.getNetwork(`mcpbox-${session}-egress`).remove(), () => docker.getVolume(`mcpbox-${session}-egress`).remove());
    expect(await sessionObjects(session)).toHaveLength(2);
    await start();
    expect(await sessionObjects(session)).toEqual([]);
  }, 90_000);
});

describe("an allowlist outside the gateway", () => {
  const cli = (dir: string, args: string[]) => {
    const { command, args: pre } = mcpboxCommand();
    return spawnSync(command, [...pre, ...args], { cwd: dir, env: { ...process.env, MCPBOX_HOME: path.join(dir, ".mcpbox"), NO_COLOR: "1" }, encoding: "utf8" });
  };

  it("config --mode direct refuses it (a plain docker run cannot enforce it), exit 1, no stack trace", () => {
    const q = project({ gh: { image: "x:1", network: { allow: ["api.github.com"] } }, off: { image: "y:1" } });
    try {
      const r = cli(q.dir, ["config", "claude-code", "--mode", "direct", "-c", q.config]);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`${q.config}: servers.gh.network: an egress allowlist cannot be enforced by a plain \`docker run\` (--mode direct)`);
      expect(r.stderr).toContain("--mode gateway");
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(cli(q.dir, ["config", "claude-code", "-c", q.config]).status).toBe(0); // the gateway enforces it
    } finally {
      fs.rmSync(q.dir, { recursive: true, force: true });
    }
  });

  it('validate warns that "bridge" leaves the host\'s own services reachable', () => {
    const q = project({ web: { image: "x:1", network: "bridge" } });
    try {
      const r = cli(q.dir, ["validate", "-c", q.config]);
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/servers\.web\.network: warning: "bridge" is full network access: .*host's own services \(anything listening on 0\.0\.0\.0\) stay reachable/);
    } finally {
      fs.rmSync(q.dir, { recursive: true, force: true });
    }
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
