/**
 * `node scripts/bench/_egress-profile.mjs [rounds]`: where the time of a fresh HTTPS request through the egress proxy
 * goes, hop by hop (tcp connect, the proxy's CONNECT answer, TLS, first byte), next to the same request on
 * `network: "bridge"`. Not a bench section (no underscore-less name): a tool for the egress bench's figures. Same test
 * host and cleanup as scripts/bench/egress.mjs; only hosts it creates.
 *   PROXY_HOSTS=1: the proxy finds good.test in its /etc/hosts instead of the engine's DNS (what DNS costs there).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { execFileSync } from "node:child_process";
import { engine } from "../../src/docker/engine.ts";
import { ensureEgressImage } from "../../src/egress/image.ts";
import { startEgress } from "../../src/egress/launch.ts";
import { nodeBaseImage } from "../../test/helpers/images.ts";
import { ROOT, percentile, requireBinary } from "./_lib.mjs";

const FIXTURES = path.join(ROOT, "test/fixtures/egress");
const BENCH_DIR = path.join(ROOT, "scripts/bench");
const LABEL = "mcpbox.bench.egress";
const RUN = `${process.pid}-${Date.now().toString(36)}`;
const NET = { name: `mcpbox-bench-egress-${RUN}`, subnet: "192.0.2.0/24", gateway: "192.0.2.1", host: "192.0.2.10" };
const rounds = Number(process.argv[2] ?? 5);
const docker = engine();
const undo = [];

async function removeLeftovers() {
  const filters = JSON.stringify({ label: [LABEL] });
  for (const c of await docker.listContainers({ all: true, filters })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
  for (const n of await docker.listNetworks({ filters })) await docker.getNetwork(n.Id).remove().catch(() => {});
  for (const v of (await docker.listVolumes({ filters })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => {});
}

async function exec(container, cmd) {
  const e = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await e.start({ hijack: true, stdin: false });
  const out = new PassThrough();
  let text = "";
  out.on("data", (d) => (text += d));
  docker.modem.demuxStream(stream, out, out);
  await new Promise((r) => stream.on("end", r));
  try { return JSON.parse(text.trim().split("\n").at(-1)); } catch { return { text }; }
}

try {
  await removeLeftovers();
  const [egressImage, nodeImage] = await Promise.all([ensureEgressImage(docker, requireBinary()), nodeBaseImage(docker)]);
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-bench-egress-"));
  undo.push(async () => fs.rmSync(certDir, { recursive: true, force: true }));
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=good.test",
    "-addext", "subjectAltName=DNS:good.test", "-keyout", path.join(certDir, "key.pem"), "-out", path.join(certDir, "cert.pem")], { stdio: "ignore" });
  const cert = { cert: fs.readFileSync(path.join(certDir, "cert.pem"), "utf8"), key: fs.readFileSync(path.join(certDir, "key.pem"), "utf8") };
  fs.rmSync(path.join(certDir, "key.pem"));
  fs.chmodSync(certDir, 0o755);
  fs.chmodSync(path.join(certDir, "cert.pem"), 0o644);
  await docker.createNetwork({ Name: NET.name, Driver: "bridge", Labels: { [LABEL]: RUN }, IPAM: { Config: [{ Subnet: NET.subnet, Gateway: NET.gateway }] } });
  undo.push(() => docker.getNetwork(NET.name).remove());
  const host = await docker.createContainer({
    name: `mcpbox-bench-egress-host-${RUN}`, Image: nodeImage, User: "1000:1000", Cmd: ["node", "/bench/_egress-host.mjs"],
    Env: ["NAME=good", `CERT=${cert.cert}`, `KEY=${cert.key}`], Labels: { [LABEL]: RUN },
    HostConfig: { NetworkMode: NET.name, Binds: [`${FIXTURES}:/fixtures:ro`, `${BENCH_DIR}:/bench:ro`], Sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" }, CapDrop: ["ALL"] },
    NetworkingConfig: { EndpointsConfig: { [NET.name]: { IPAMConfig: { IPv4Address: NET.host }, Aliases: ["good.test"] } } },
  });
  undo.push(() => host.remove({ force: true }));
  await host.start();
  const egress = await startEgress({
    docker, image: egressImage, server: "web", allow: ["good.test", "good.test:9443"], labels: { [LABEL]: RUN }, name: `mcpbox-bench-egress-${RUN}`,
    onRecord: () => {}, extraNetworks: [NET.name], ...(process.env.PROXY_HOSTS ? { proxyHosts: [`good.test:${NET.host}`] } : {}),
  });
  undo.push(() => egress.stop());
  const client = async (name, NetworkMode, extraHosts) => {
    const c = await docker.createContainer({
      name: `mcpbox-bench-egress-${name}-${RUN}`, Image: nodeImage, User: "1000:1000", Entrypoint: ["node", "-e", "setInterval(() => {}, 1 << 30)"],
      Labels: { [LABEL]: RUN },
      HostConfig: { NetworkMode, ...(extraHosts ? { ExtraHosts: extraHosts } : {}), Binds: [`${BENCH_DIR}:/bench:ro`, `${certDir}:/ca:ro`], CapDrop: ["ALL"], Init: true },
    });
    undo.push(() => c.remove({ force: true }));
    await c.start();
    return c;
  };
  const viaProxy = await client("proxied", egress.networkMode);
  const viaBridge = await client("bridge", NET.name); // the engine's DNS finds good.test, as the proxy's lookup does
  const all = { proxy: [], bridge: [] };
  for (let r = 0; r < rounds + 1; r++) {
    const p = await exec(viaProxy, ["node", "/bench/_egress-phases.mjs", "good.test", "9443", "20", "127.0.0.1", "3128"]);
    const b = await exec(viaBridge, ["node", "/bench/_egress-phases.mjs", "good.test", "9443", "20"]);
    if (!p.samples || !b.samples) throw new Error(JSON.stringify({ p, b }));
    if (r > 0) (all.proxy.push(...p.samples.slice(2)), all.bridge.push(...b.samples.slice(2)));
  }
  if (process.env.TRACE) {
    const e = await viaProxy.exec({ Cmd: ["node", "/bench/_egress-phases.mjs", "good.test", "9443", "5", "127.0.0.1", "3128"], Env: ["TRACE=1"], AttachStdout: true, AttachStderr: true });
    const stream = await e.start({ hijack: true, stdin: false });
    let text = "";
    const out = new PassThrough();
    out.on("data", (d) => (text += d));
    docker.modem.demuxStream(stream, new PassThrough(), out);
    await new Promise((r) => stream.on("end", r));
    await new Promise((r) => setTimeout(r, 500));
    const logs = async (id) => (await docker.getContainer(id).logs({ stdout: false, stderr: true, tail: 200 })).toString("latin1");
    fs.writeFileSync(process.env.TRACE, text + (await logs(egress.proxyId)) + (await logs(egress.forwarderId)));
  }
  for (const [name, samples] of Object.entries(all)) {
    const keys = Object.keys(samples[0]);
    console.log(name.padEnd(7), keys.map((k) => `${k} ${percentile(samples.map((s) => s[k]), 50).toFixed(2)}`).join("  "));
  }
} finally {
  for (const u of undo.reverse()) await u().catch((e) => console.error(String(e)));
  await removeLeftovers();
}
