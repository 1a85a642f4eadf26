/**
 * Egress (issue 13): an allowlisted server's HTTPS through mcpbox's egress proxy (startEgress, as the gateway runs
 * it: the client shares the forwarder's namespace and has the proxy variables) next to the same request from a
 * container on `network: "bridge"` (the engine's default bridge, no proxy), interleaved round by round:
 *   - time to first byte of a request on a fresh connection (CONNECT + TLS each time through the proxy), goal < 1.2x
 *   - throughput of a 50 MB download, goal at least 0.8x (shown as its download time, under 1.25x)
 *   - spawn `dist/mcpbox serve` → tools/list answered, one allowlisted server vs one `network: "none"` server
 * The machine is shared (2 cores, other work): rounds alternate which path goes first, each figure is a median, the
 * TTFB also as the median of per-round ratios (a load burst then hits both sides of one ratio), and each figure says
 * the 1-minute load average (os.loadavg) its rounds ran at.
 * Only hosts the bench creates: one test host on a network it makes in a documentation range (192.0.2.0/24). The
 * baseline client sits on that network too (a bridge network with direct egress, as `"bridge"` gives a server), so
 * both paths find `good.test` the same way: through the engine's DNS (the proxy on its side, the client on its own);
 * neither gets it from /etc/hosts. Every container, network and volume it made is removed.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { engine } from "../../src/docker/engine.ts";
import { LABEL } from "../../src/policy/labels.ts";
import { ensureEgressImage } from "../../src/egress/image.ts";
import { startEgress } from "../../src/egress/launch.ts";
import { nodeBaseImage } from "../../test/helpers/images.ts";
import { ROOT, percentile, requireBinary, timedRow } from "./_lib.mjs";
import { openGateway } from "./_gateway-lib.mjs";

const FIXTURES = path.join(ROOT, "test/fixtures/egress");
const BENCH_DIR = path.join(ROOT, "scripts/bench");
const BENCH_LABEL = "mcpbox.bench.egress";
const RUN = `${process.pid}-${Date.now().toString(36)}`;
const NET = { name: `mcpbox-bench-egress-${RUN}`, subnet: "192.0.2.0/24", gateway: "192.0.2.1", host: "192.0.2.10" };
const BULK_BYTES = 50 * 1024 * 1024;
const TTFB_PER_ROUND = 6; // the first of each process is dropped (it loads fetch)
const TTFB_ROUNDS = 20;
const BULK_ROUNDS = 7;
const START_ROUNDS = 6;
const TTFB_BASE = 'TTFB, HTTPS on a fresh connection, network "bridge" (baseline)';
const BULK_BASE = 'download 50 MB over HTTPS, network "bridge" (baseline)';
const BULK_TIME_BASE = 'download 50 MB, time, network "bridge" (baseline)';
const START_BASE = 'spawn mcpbox serve → tools/list, 1 server, network "none" (baseline)';
const stats = (v) => ({ median: percentile(v, 50), p95: percentile(v, 95), samples: v });

export default async function run({ runs } = {}) {
  const bin = requireBinary();
  const docker = engine();
  const undo = [];
  const pids = new Set();
  const dirs = [];
  try {
    await removeLeftovers(docker);
    const [egressImage, nodeImage] = await Promise.all([ensureEgressImage(docker, bin), nodeBaseImage(docker)]);
    const certDir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-bench-egress-"));
    dirs.push(certDir);
    const cert = selfSignedCert(certDir);

    await docker.createNetwork({ Name: NET.name, Driver: "bridge", Labels: { [BENCH_LABEL]: RUN }, IPAM: { Config: [{ Subnet: NET.subnet, Gateway: NET.gateway }] } });
    undo.push(() => docker.getNetwork(NET.name).remove());
    const host = await docker.createContainer({
      name: `mcpbox-bench-egress-host-${RUN}`,
      Image: nodeImage,
      User: "1000:1000",
      Cmd: ["node", "/bench/_egress-host.mjs"],
      Env: ["NAME=good", `CERT=${cert.cert}`, `KEY=${cert.key}`],
      Labels: { [BENCH_LABEL]: RUN },
      HostConfig: {
        NetworkMode: NET.name,
        Binds: [`${FIXTURES}:/fixtures:ro`, `${BENCH_DIR}:/bench:ro`],
        Sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" },
        CapDrop: ["ALL"],
      },
      NetworkingConfig: { EndpointsConfig: { [NET.name]: { IPAMConfig: { IPv4Address: NET.host }, Aliases: ["good.test"] } } },
    });
    undo.push(() => host.remove({ force: true }));
    await host.start();

    const records = [];
    const egress = await startEgress({
      docker,
      image: egressImage,
      server: "web",
      allow: ["good.test", "good.test:9443"],
      labels: { [BENCH_LABEL]: RUN, [LABEL.server]: "web" },
      name: `mcpbox-bench-egress-${RUN}`,
      onRecord: (r) => records.push(r),
      extraNetworks: [NET.name], // as the gateway does with MCPBOX_TEST_EGRESS_NETWORKS: the proxy finds good.test there
    });
    undo.push(() => egress.stop());

    const client = async (name, networkMode, env, extraHosts) => {
      const c = await docker.createContainer({
        name: `mcpbox-bench-egress-${name}-${RUN}`,
        Image: nodeImage,
        User: "1000:1000",
        Entrypoint: ["node", "-e", "setInterval(() => {}, 1 << 30)"],
        Env: [...Object.entries(env).map(([k, v]) => `${k}=${v}`), "NODE_EXTRA_CA_CERTS=/ca/cert.pem"],
        Labels: { [BENCH_LABEL]: RUN },
        HostConfig: {
          NetworkMode: networkMode,
          ...(extraHosts ? { ExtraHosts: extraHosts } : {}),
          Binds: [`${BENCH_DIR}:/bench:ro`, `${certDir}:/ca:ro`],
          ReadonlyRootfs: true,
          Tmpfs: { "/tmp": "rw,noexec,size=8m" },
          CapDrop: ["ALL"],
          SecurityOpt: ["no-new-privileges"],
          Memory: 512 * 1024 * 1024,
          Init: true,
        },
      });
      undo.push(() => c.remove({ force: true }));
      await c.start();
      return c;
    };
    const viaProxy = await client("proxied", egress.networkMode, egress.env);
    const viaBridge = await client("bridge", NET.name, {});
    const paths = [
      { name: "proxy", c: viaProxy },
      { name: "bridge", c: viaBridge },
    ];
    // a sanity check: the proxied path really goes through the proxy (its record)
    const hello = await probe(docker, viaProxy, ["ttfb", "https://good.test:9443/ttfb", "1"]);
    if (!hello.samples) throw new Error("no answer through the proxy");
    const seen = () => records.some((r) => r.host === "good.test" && r.port === 9443 && r.outcome === "ok");
    for (let i = 0; i < 50 && !seen(); i++) await new Promise((r) => setTimeout(r, 100));
    if (!seen()) throw new Error("the proxy recorded no connection to good.test:9443");

    const ttfb = { proxy: [], bridge: [], ratios: [], load: [] };
    const ttfbRounds = runs ?? TTFB_ROUNDS;
    for (let round = 0; round < ttfbRounds + 1; round++) {
      const got = {};
      for (const p of round % 2 ? paths : [...paths].reverse()) {
        const r = await probe(docker, p.c, ["ttfb", "https://good.test:9443/ttfb", String(TTFB_PER_ROUND)]);
        got[p.name] = r.samples.slice(1); // the first of each process pays for loading fetch
      }
      if (round === 0) continue;
      ttfb.proxy.push(...got.proxy);
      ttfb.bridge.push(...got.bridge);
      ttfb.ratios.push(percentile(got.proxy, 50) / percentile(got.bridge, 50));
      ttfb.load.push(os.loadavg()[0]);
    }
    const bulk = { proxy: [], bridge: [], load: [] };
    const bulkRounds = runs ?? BULK_ROUNDS;
    for (let round = 0; round < bulkRounds + 1; round++) {
      for (const p of round % 2 ? paths : [...paths].reverse()) {
        const r = await probe(docker, p.c, ["bulk", `https://good.test:9443/bytes/${BULK_BYTES}`, String(BULK_BYTES)]);
        if (round >= 1) bulk[p.name].push(r.ms);
      }
      if (round >= 1) bulk.load.push(os.loadavg()[0]);
    }
    // every proxied download is one of the proxy's records, with all its bytes (the records follow its logs: wait a bit)
    const proxied = () => records.filter((r) => r.port === 9443 && r.outcome === "ok" && r.bytesDown >= BULK_BYTES).length;
    for (let i = 0; i < 50 && proxied() < bulkRounds + 1; i++) await new Promise((r) => setTimeout(r, 100));
    if (proxied() < bulkRounds + 1) throw new Error(`the proxy recorded ${proxied()} downloads of 50 MB, not ${bulkRounds + 1}`);

    const start = await startRows(docker, nodeImage, bin, pids, dirs, runs ?? START_ROUNDS);

    const ttfbBase = stats(ttfb.bridge);
    const mbps = (ms) => BULK_BYTES / 1e6 / (ms / 1000);
    const bulkBase = stats(bulk.bridge);
    const bulkProxy = stats(bulk.proxy);
    const ttfbLoad = loadOf(ttfb.load);
    const bulkLoad = loadOf(bulk.load);
    return [
      timedRow(TTFB_BASE, ttfbBase, { load: ttfbLoad }),
      timedRow("TTFB, HTTPS on a fresh connection, through the egress proxy", stats(ttfb.proxy), {
        baseline: TTFB_BASE,
        goal: { below: ttfbBase.median * 1.2, text: "(under 1.2x bridge)" },
        load: ttfbLoad,
      }),
      // in percent: the report prints one decimal
      { measure: "TTFB proxy vs bridge, median of the per-round ratios (goal under 120)", value: 100 * percentile(ttfb.ratios, 50), unit: "% of bridge", p95: 100 * percentile(ttfb.ratios, 95), load: ttfbLoad },
      loadRow("TTFB rounds", ttfbLoad),
      { measure: BULK_BASE, value: mbps(bulkBase.median), unit: "MB/s", load: bulkLoad },
      { measure: "download 50 MB over HTTPS, through the egress proxy", value: mbps(bulkProxy.median), unit: "MB/s", baseline: BULK_BASE, load: bulkLoad },
      timedRow(BULK_TIME_BASE, bulkBase, { load: bulkLoad }),
      timedRow("download 50 MB, time, through the egress proxy", bulkProxy, {
        baseline: BULK_TIME_BASE,
        goal: { below: bulkBase.median / 0.8, text: "(throughput at least 0.8x bridge)" },
        load: bulkLoad,
      }),
      loadRow("download rounds", bulkLoad),
      ...start,
    ];
  } finally {
    for (const u of undo.reverse()) await u().catch(() => {});
    await removeGatewayObjects(docker, pids);
    await removeLeftovers(docker);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

/** The 1-minute load average over a figure's rounds (os.loadavg after each). */
function loadOf(samples) {
  return { median: percentile(samples, 50), min: Math.min(...samples), max: Math.max(...samples) };
}

const loadRow = (what, l) => ({ measure: `machine load during the ${what} (1-min loadavg, median; ${l.min.toFixed(1)}-${l.max.toFixed(1)})`, value: l.median, unit: "loadavg" });

/** Spawn → tools/list answered: one allowlisted server vs the same server on `network: "none"`, round by round. */
async function startRows(docker, image, bin, pids, dirs, rounds) {
  const server = (network) => ({
    image,
    command: ["node", "/fixtures/server.mjs"],
    mounts: [{ source: FIXTURES, target: "/fixtures" }],
    network,
    timeouts: { startupMs: 60_000 },
  });
  const proj = (name, network) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcpbox-bench-egress-${name}-`));
    dirs.push(dir);
    const config = path.join(dir, "sandbox.config.json");
    fs.writeFileSync(config, JSON.stringify({ servers: { web: server(network) } }, null, 2));
    return { dir, config, home: path.join(dir, ".mcpbox") };
  };
  const projects = { none: proj("none", "none"), allow: proj("allow", { allow: ["good.test"] }) };
  const samples = { none: [], allow: [] };
  const load = [];
  for (let round = 0; round < rounds + 1; round++) {
    if (round >= 1) load.push(os.loadavg()[0]);
    for (const name of round % 2 ? ["none", "allow"] : ["allow", "none"]) {
      const t0 = performance.now();
      const gw = await openGateway(projects[name], pids);
      try {
        const { tools } = await gw.client.listTools();
        const ms = performance.now() - t0;
        if (!tools.some((t) => t.name === "web__fetch")) throw new Error(`tools/list had no web__fetch:\n${gw.stderr()}`);
        if (round >= 1) samples[name].push(ms);
      } finally {
        await closeGateway(gw);
        await gatewayObjectsGone(docker, gw.pid);
      }
    }
  }
  const base = stats(samples.none);
  const l = loadOf(load);
  return [
    timedRow(START_BASE, base, { load: l }),
    timedRow("spawn mcpbox serve → tools/list, 1 allowlisted server (proxy + forwarder first)", stats(samples.allow), { baseline: START_BASE, load: l }),
    loadRow("start rounds", l),
  ];
}

/** Ends the gateway's stdin and waits for it to exit (it removes its session), at most 30 s; then closes. */
async function closeGateway(gw) {
  gw.client.transport?._process?.stdin?.end();
  const end = Date.now() + 30_000;
  while (Date.now() < end && alive(gw.pid)) await new Promise((r) => setTimeout(r, 100));
  await gw.close().catch(() => {});
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function objectsOf(docker, label) {
  const filters = JSON.stringify({ label: [label] });
  const [containers, networks, volumes] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listNetworks({ filters }),
    docker.listVolumes({ filters }),
  ]);
  return { containers, networks, volumes: volumes.Volumes ?? [] };
}

async function gatewayObjectsGone(docker, pid) {
  const end = Date.now() + 15_000;
  while (Date.now() < end) {
    const o = await objectsOf(docker, `${LABEL.ownerPid}=${pid}`);
    if (o.containers.length + o.networks.length + o.volumes.length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function removeObjects(docker, label) {
  const o = await objectsOf(docker, label).catch(() => ({ containers: [], networks: [], volumes: [] }));
  for (const c of o.containers) await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
  for (const n of o.networks) await docker.getNetwork(n.Id).remove().catch(() => {});
  for (const v of o.volumes) await docker.getVolume(v.Name).remove().catch(() => {});
}

async function removeGatewayObjects(docker, pids) {
  for (const pid of pids) await removeObjects(docker, `${LABEL.ownerPid}=${pid}`);
}

/** This run's containers, network and volume (and those of an earlier run of this bench that was killed). */
async function removeLeftovers(docker) {
  await removeObjects(docker, BENCH_LABEL);
}

/** `node /bench/_egress-probe.mjs <args>` in a running client container; its JSON line. */
async function probe(docker, container, args) {
  const exec = await container.exec({ Cmd: ["node", "/bench/_egress-probe.mjs", ...args], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = "";
  let stderr = "";
  out.on("data", (d) => (stdout += d));
  err.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  docker.modem.demuxStream(stream, out, err);
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`probe ${args.join(" ")} took over 180 s`)), 180_000);
    stream.on("end", () => (clearTimeout(timer), resolve()));
    stream.on("error", (e) => (clearTimeout(timer), reject(e)));
  });
  const line = stdout.trim().split("\n").at(-1) ?? "";
  let r;
  try {
    r = JSON.parse(line);
  } catch {
    throw new Error(`probe ${args.join(" ")} printed no result: ${stdout}${stderr}`);
  }
  if (r.error) throw new Error(`probe ${args.join(" ")} failed: ${r.error}`);
  return r;
}

function selfSignedCert(dir) {
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=good.test",
    "-addext", "subjectAltName=DNS:good.test", "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")], { stdio: "ignore" });
  const out = { cert: fs.readFileSync(path.join(dir, "cert.pem"), "utf8"), key: fs.readFileSync(path.join(dir, "key.pem"), "utf8") };
  fs.rmSync(path.join(dir, "key.pem"));
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(path.join(dir, "cert.pem"), 0o644);
  return out;
}
