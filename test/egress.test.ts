// Egress confinement with the real engine (SPEC 10): the proxy and the forwarder run from the egress image built
// from dist/mcpbox; a client container in the forwarder's network namespace plays the server. It aims only at hosts
// this test creates: two test hosts on test networks (a documentation range, 203.0.113.0/24, and a private one), a
// service this test binds on the host, and the names the proxy's /etc/hosts gives them.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { ensureEgressImage } from "../src/egress/image.ts";
import { startEgress, type RunningEgress } from "../src/egress/launch.ts";
import type { EgressRecord } from "../src/egress/record.ts";
import { nodeBaseImage } from "./helpers/images.ts";

const REPO = path.resolve(import.meta.dirname, "..");
const FIXTURES = path.join(REPO, "test/fixtures/egress");
const TEST_LABEL = "mcpbox.test.egress";
const run = `${process.pid}-${Date.now().toString(36)}`;
const PUBLIC = { subnet: "203.0.113.0/24", gateway: "203.0.113.1", good: "203.0.113.10", other: "203.0.113.20" };
const docker = engine();
const records: EgressRecord[] = [];
const cleanup: Array<() => Promise<unknown>> = [];
let egress: RunningEgress;
let result: Record<string, { ok: boolean; value?: unknown; error?: string }>;
let hostService: net.Server;
let hostPort = 0;
let hostHits = 0;
let gateways: string[] = [];
let clientInfo: { HostConfig?: { NetworkMode?: string } };

async function removeLeftovers(): Promise<void> {
  const filters = JSON.stringify({ label: [TEST_LABEL] });
  for (const c of await docker.listContainers({ all: true, filters })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
  for (const n of await docker.listNetworks({ filters })) await docker.getNetwork(n.Id).remove().catch(() => {});
  for (const v of (await docker.listVolumes({ filters })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => {});
}

async function testHost(name: string, image: string, network: string, ip: string, cert: { cert: string; key: string }) {
  const c = await docker.createContainer({
    name: `mcpbox-egress-test-${name}-${run}`,
    Image: image,
    User: "1000:1000",
    Cmd: ["node", "/fixtures/host.mjs"],
    Env: [`NAME=${name}`, `CERT=${cert.cert}`, `KEY=${cert.key}`],
    Labels: { [TEST_LABEL]: run },
    HostConfig: {
      NetworkMode: network,
      Binds: [`${FIXTURES}:/fixtures:ro`],
      Sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" },
      CapDrop: ["ALL"],
    },
    NetworkingConfig: { EndpointsConfig: { [network]: { IPAMConfig: { IPv4Address: ip } } } },
  });
  cleanup.push(() => c.remove({ force: true }));
  return c;
}

function selfSignedCert(): { cert: string; key: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-egress-cert-"));
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=good.test",
      "-addext", "subjectAltName=DNS:good.test,DNS:other.test,DNS:rebind.test,DNS:named.test",
      "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")], { stdio: "ignore" });
    return { cert: fs.readFileSync(path.join(dir, "cert.pem"), "utf8"), key: fs.readFileSync(path.join(dir, "key.pem"), "utf8") };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function waitForRecords(pred: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
}

beforeAll(async () => {
  await removeLeftovers();
  const [egressImage, nodeImage] = await Promise.all([ensureEgressImage(docker, path.join(REPO, "dist/mcpbox")), nodeBaseImage(docker)]);
  const cert = selfSignedCert();

  hostService = net.createServer((c) => {
    hostHits++;
    c.end("host-secret");
  });
  hostPort = await new Promise<number>((r) => hostService.listen(0, "0.0.0.0", () => r((hostService.address() as net.AddressInfo).port)));

  const pub = `mcpbox-egress-test-pub-${run}`;
  const priv = `mcpbox-egress-test-priv-${run}`;
  await docker.createNetwork({ Name: pub, Driver: "bridge", Labels: { [TEST_LABEL]: run }, IPAM: { Config: [{ Subnet: PUBLIC.subnet, Gateway: PUBLIC.gateway }] } });
  cleanup.push(() => docker.getNetwork(pub).remove());
  await docker.createNetwork({ Name: priv, Driver: "bridge", Labels: { [TEST_LABEL]: run } });
  cleanup.push(() => docker.getNetwork(priv).remove());
  const privInfo = (await docker.getNetwork(priv).inspect()) as { IPAM: { Config: Array<{ Subnet: string; Gateway: string }> } };
  const privSubnet = privInfo.IPAM.Config[0]!;
  gateways = [PUBLIC.gateway, privSubnet.Gateway];

  const good = await testHost("good", nodeImage, pub, PUBLIC.good, cert);
  await docker.getNetwork(priv).connect({ Container: good.id });
  const other = await testHost("other", nodeImage, pub, PUBLIC.other, cert);
  await Promise.all([good.start(), other.start()]);
  const privGood = (await good.inspect()).NetworkSettings.Networks[priv]!.IPAddress; // assigned at start

  egress = await startEgress({
    docker,
    image: egressImage,
    server: "web",
    allow: ["good.test", "rebind.test", "named.test:8443", `${privGood}/32:8443`, "echo.test:7000", `gw.test:${hostPort}`],
    labels: { [TEST_LABEL]: run, "mcpbox.server": "web" },
    name: `mcpbox-egress-test-${run}`,
    onRecord: (r) => records.push(r),
    networks: [pub, priv],
    proxyHosts: [`good.test:${PUBLIC.good}`, `other.test:${PUBLIC.other}`, `echo.test:${PUBLIC.other}`,
      `rebind.test:${privGood}`, `named.test:${privGood}`, `gw.test:${PUBLIC.gateway}`],
  });
  cleanup.push(() => egress.stop());

  const client = await docker.createContainer({
    name: `mcpbox-egress-test-client-${run}`,
    Image: nodeImage,
    User: "1000:1000",
    Entrypoint: ["sh", "-c", 'printf "%s" "$CA" > /tmp/ca.pem && NODE_EXTRA_CA_CERTS=/tmp/ca.pem exec node /fixtures/client.mjs'],
    Env: [...Object.entries(egress.env).map(([k, v]) => `${k}=${v}`), `CA=${cert.cert}`, `HOST_PORT=${hostPort}`,
      `GATEWAYS=${gateways.join(",")}`, `DIRECT_IP=${PUBLIC.good}`],
    Labels: { [TEST_LABEL]: run },
    HostConfig: {
      NetworkMode: egress.networkMode,
      Binds: [`${FIXTURES}:/fixtures:ro`],
      ReadonlyRootfs: true,
      Tmpfs: { "/tmp": "rw,noexec,size=8m" },
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
    },
  });
  cleanup.push(() => client.remove({ force: true }));
  await client.start();
  await client.wait();
  clientInfo = await client.inspect();
  const logs = (await client.logs({ stdout: true, stderr: true })).toString("utf8");
  const line = logs.split("\n").find((l) => l.includes('{"interfaces"'));
  if (!line) throw new Error(`the client printed no result:\n${logs}`);
  result = JSON.parse(line.slice(line.indexOf("{")));
  await waitForRecords(() => records.length >= 8);
}, 120_000);

afterAll(async () => {
  for (const undo of cleanup.reverse()) await undo().catch(() => {});
  hostService?.close();
});

const recordFor = (host: string, port: number) => records.find((r) => r.host === host && r.port === port);

describe("egress allowlist (SPEC 10), real engine", () => {
  it("reaches an allowed host over HTTPS (TLS tunnelled) and HTTP with fetch, each recorded ok with bytes", () => {
    expect(result.allowed).toEqual({ ok: true, value: "200 good /hello" });
    expect(result.allowedHttp).toEqual({ ok: true, value: "200 good /plain" });
    expect(recordFor("good.test", 443)).toMatchObject({ server: "web", outcome: "ok", via: "connect" });
    expect(recordFor("good.test", 443)!.bytesUp).toBeGreaterThan(100); // a TLS handshake went through, untouched
    expect(recordFor("good.test", 443)!.bytesDown).toBeGreaterThan(500);
    expect(recordFor("good.test", 80)).toMatchObject({ outcome: "ok" }); // fetch tunnels http:// through CONNECT too
  });

  it("refuses a host that is not listed, and a listed host on a port that is not", () => {
    expect(result.notListed!.ok).toBe(false);
    expect(result.unlistedPort!.ok).toBe(false);
    expect(recordFor("other.test", 443)).toMatchObject({ outcome: "denied", reason: "not on the allowlist", bytesUp: 0 });
    expect(recordFor("good.test", 8443)).toMatchObject({ outcome: "denied" });
  });

  it("refuses an allowed name resolving to a private address, unless an entry names that address", () => {
    expect(result.rebind!.ok).toBe(false);
    expect(recordFor("rebind.test", 443)).toMatchObject({ outcome: "denied", reason: expect.stringMatching(/\(private\), refused unless an entry names/) });
    expect(result.named).toEqual({ ok: true, value: "200 good /named" });
    expect(recordFor("named.test", 8443)).toMatchObject({ outcome: "ok" });
  });

  it("forwards a host:port entry as plain TCP", () => {
    expect(result.tcpForward).toEqual({ ok: true, value: "echo-me-123" });
    expect(recordFor("echo.test", 7000)).toMatchObject({ outcome: "ok", bytesUp: 11, bytesDown: 11 });
  });

  it("has no way out but the forwarder: no interface but loopback, no direct connection, no DNS", () => {
    expect(result.interfaces).toEqual({ ok: true, value: ["lo"] });
    expect(result.direct).toMatchObject({ ok: false, error: expect.stringMatching(/ENETUNREACH|EHOSTUNREACH|timeout/) });
    expect(result.dnsLookup!.ok).toBe(false);
    expect(result.dnsQuery!.ok).toBe(false);
    expect(clientInfo.HostConfig?.NetworkMode).toBe(egress.networkMode);
  });

  it("never reaches a service bound on the host's 0.0.0.0, directly or behind an allowed name", () => {
    for (const gw of gateways) expect(result[`host:${gw}`]).toMatchObject({ ok: false });
    // the forward opened, the proxy refused, the forwarder closed it (an empty read or a reset)
    expect(result.hostViaForward).toSatisfy((r: { ok: boolean; value?: unknown; error?: string }) => (r.ok ? r.value === "" : /ECONNRESET/.test(r.error ?? "")));
    expect(recordFor("gw.test", hostPort)).toMatchObject({ outcome: "denied", reason: expect.stringMatching(/gateway/) });
    expect(hostHits).toBe(0);
  });

  it("runs the proxy and the forwarder hardened, the forwarder with no network, the proxy on its own", async () => {
    for (const id of [egress.proxyId, egress.forwarderId]) {
      const info = await docker.getContainer(id).inspect();
      expect(info.Config.User).toBe("1000:1000");
      expect(info.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ["ALL"], SecurityOpt: ["no-new-privileges"], Init: true, PidsLimit: 64 });
      expect(info.HostConfig.Memory).toBeGreaterThan(0);
      expect(info.HostConfig.Privileged).toBe(false);
    }
    expect((await docker.getContainer(egress.forwarderId).inspect()).HostConfig.NetworkMode).toBe("none");
  });
});

describe("egress objects (SPEC 4.6)", () => {
  it("puts the proxy on a network of its own (no traffic between containers), labels everything, and stop() removes it all", async () => {
    const image = await ensureEgressImage(docker, path.join(REPO, "dist/mcpbox"));
    const labels = { [TEST_LABEL]: run, "mcpbox.session": `egress-${run}` };
    const own = await startEgress({ docker, image, server: "own", allow: ["a.test"], labels, name: `mcpbox-egress-own-${run}`, onRecord: () => {} });
    let stopped = false;
    try {
      const network = await docker.getNetwork(`mcpbox-egress-own-${run}-egress`).inspect();
      expect(network.Options).toMatchObject({ "com.docker.network.bridge.enable_icc": "false" });
      expect(network.Labels).toMatchObject(labels);
      expect(Object.keys(network.Containers ?? {})).toEqual([own.proxyId]); // the forwarder and the server are not on it
      expect((await docker.getVolume(`mcpbox-egress-own-${run}-egress`).inspect()).Labels).toMatchObject(labels);
      for (const id of [own.proxyId, own.forwarderId]) expect((await docker.getContainer(id).inspect()).Config.Labels).toMatchObject(labels);
      await own.stop();
      stopped = true;
      const filters = JSON.stringify({ label: [`mcpbox.session=egress-${run}`] });
      expect(await docker.listContainers({ all: true, filters })).toEqual([]);
      expect(await docker.listNetworks({ filters })).toEqual([]);
      expect((await docker.listVolumes({ filters })).Volumes ?? []).toEqual([]);
    } finally {
      if (!stopped) await own.stop();
    }
  });
});
