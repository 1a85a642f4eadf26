/**
 * Issue 15's table, each goal next to the baseline it names, measured in the same run (`npm run bench -- costs`):
 * echo p50/p95 through `mcpbox serve` vs `docker run -i` of the same image (the argv `config --mode direct` writes) and
 * vs a byte-copying process; calls/s with 16 in flight vs direct dockerode; the gateway's RSS with 10 servers and its
 * growth over BENCH_CALLS (default 100000) calls; `validate` of 20 servers vs `--version`; spawn serve (5 servers) →
 * tools/list once a catalog was cached by an earlier run, vs `--version`; spawn serve (5 servers) → a call answered on
 * every server, nothing cached, vs 5 direct starts in parallel → a call answered on each.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { engine } from "../../src/docker/engine.ts";
import { ensureTestImage } from "../../test/helpers/images.ts";
import { writeConfig } from "./binary.mjs";
import { EXEC_ARGV } from "../sea/exec-argv.mjs";
import { BINARY, NODE, ROOT, cpuCommands, percentile, requireBinary, timeCommands, timedRow } from "./_lib.mjs";
import {
  cleanup,
  cpuMicros,
  gatewayGone,
  gatewayProject,
  openDirect,
  openDockerRun,
  openGateway,
  openRelay,
  rssMb,
  throughput,
  timedEcho,
} from "./_gateway-lib.mjs";

const stats = (v) => ({ median: percentile(v, 50), p95: percentile(v, 95), samples: v });
const B = {
  run50: "echo p50, docker run -i of the image (baseline)",
  run95: "echo p95, docker run -i of the image (baseline)",
  relay: "echo p50, byte-copying process (baseline)",
  rate: "calls/s, 16 in flight, direct dockerode (baseline)",
  version: "mcpbox --version (baseline)",
  version2: "mcpbox --version, timed in the start rounds (baseline)",
  start: "5 direct starts in parallel → a call answered on each (baseline)",
  versionCpu: "mcpbox --version CPU (user + system, baseline)",
  nodeAnon: "private (anonymous) RSS of an idle Node, same version, nothing loaded (baseline)",
  sdkRss: "RSS of an idle Node, same version and flags, that only imported the MCP SDK's client and server packages (reference)",
};

export default async function run({ runs = 300 } = {}) {
  const bin = requireBinary();
  const docker = engine();
  const image = await ensureTestImage("mcpbox-test/everything:latest", docker);
  const pids = new Set();
  const dirs = [];
  const project = (n) => (dirs.push(gatewayProject(image, n)), dirs.at(-1));
  try {
    return [
      ...(await callRows(docker, image, project(1), pids, runs)),
      ...(await memoryRows(project(10), pids, Number(process.env.BENCH_CALLS ?? 100_000))),
      ...validateRows(bin, dirs),
      ...(await startRows(docker, image, bin, project(5), pids)),
    ];
  } finally {
    await cleanup(docker, pids);
    for (const p of dirs) fs.rmSync(p.dir, { recursive: true, force: true });
  }
}

/** Echo latency, call by call in rotation, and calls/s, block by block: serve, docker run -i, the byte copier, dockerode. */
async function callRows(docker, image, proj, pids, runs) {
  const gw = await openGateway(proj, pids);
  const opened = [gw];
  try {
    const dockerRun = await openDockerRun(image);
    opened.push(dockerRun);
    const relay = await openRelay(image);
    opened.push(relay);
    const direct = await openDirect(docker, image, "echo");
    opened.push(direct);
    const paths = [
      { name: "gw", client: gw.client, tool: "s0__echo" },
      { name: "run", client: dockerRun.client, tool: "echo" },
      { name: "relay", client: relay.client, tool: "echo" },
      { name: "direct", client: direct.client, tool: "echo" },
    ];
    const samples = Object.fromEntries(paths.map((p) => [p.name, []]));
    for (let i = 0; i < 30 + runs; i++) {
      for (const p of [...paths.slice(i % 4), ...paths.slice(0, i % 4)]) {
        const ms = await timedEcho(p.client, p.tool, i);
        if (i >= 30) samples[p.name].push(ms);
      }
    }
    const rate = Object.fromEntries(paths.map((p) => [p.name, []]));
    for (let block = 0; block < 4; block++) {
      for (const p of block % 2 ? paths : [...paths].reverse()) rate[p.name].push(await throughput(p.client, p.tool, 500, 16));
    }
    const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)]));
    const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
    const p95 = (measure, t, extra = {}) => ({ measure, value: t.p95, unit: "ms", ...extra });
    return [
      timedRow(B.run50, s.run),
      timedRow("echo p50 through mcpbox serve", s.gw, { baseline: B.run50, goal: { ratioAtMost: 1.15 } }),
      p95(B.run95, s.run),
      p95("echo p95 through mcpbox serve", s.gw, { baseline: B.run95, goal: { ratioAtMost: 1.15 } }),
      timedRow(B.relay, s.relay),
      timedRow("echo p50 through mcpbox serve (against the byte copier)", s.gw, { baseline: B.relay, goal: { ratioAtMost: 1.1 } }),
      timedRow("echo p50, direct dockerode (for reference)", s.direct),
      { measure: B.rate, value: mean(rate.direct), unit: "calls/s" },
      { measure: "calls/s, 16 in flight, through mcpbox serve", value: mean(rate.gw), unit: "calls/s", baseline: B.rate, goal: { ratioAtLeast: 0.9 } },
      { measure: "calls/s, 16 in flight, byte-copying process (for reference)", value: mean(rate.relay), unit: "calls/s", baseline: B.rate },
      { measure: "calls/s, 16 in flight, docker run -i (for reference)", value: mean(rate.run), unit: "calls/s", baseline: B.rate },
    ];
  } finally {
    for (const o of opened) await o.close().catch(() => {});
    await gatewayGone(docker, gw.pid);
  }
}

/**
 * RSS of serve with ten servers after tools/list and a call to each, then its growth over `calls` more calls. The home
 * is warmed first (a validate fills the compile cache, as any earlier start did): the first start of a config also
 * loads Node's TypeScript stripper (amaro, about 10 MB), every later one does not. The goal rows are taken after
 * `settle` seconds of idle, which is what a long-running gateway between bursts shows: its launcher gives the old space
 * that call garbage grew back once idle (scripts/sea/launcher.cjs). The busy high-water, taken at once, is printed for
 * reference, as is the make-up of RSS: the private (anonymous) part, what of it an idle Node of the same version with
 * nothing loaded has (baseline, measured beside it), and the file pages, the executable's apart. The executable's file
 * pages are shared with the page cache, and how many a process shows depends on how the file got there, not on mcpbox:
 * the kernel (6.x, ext4 with large folios) maps the whole page-cache folio around each page touched, and a file written
 * or read() whole into an empty cache (a build, some downloads) sits in large folios, one paged in by faults (or copied
 * by cp) in small ones. Measured: serve with 10 servers 52 MB of them after the binary was dropped from the cache
 * (posix_fadvise DONTNEED), 84 MB after it was then read whole; a minimal Node SEA of the same Node that only idles 33
 * vs 59 MB (RSS 42 vs 68 MB). So the goal row is taken in a state every run reproduces: serve runs from a copy of the
 * binary, written back and dropped from the cache, then paged in by faults as after a reboot; serve run from a copy
 * written by one write() is printed beside it.
 */
async function memoryRows(proj, pids, calls, settle = 4) {
  // a copy of its own: no other process maps its pages (those would stay in the cache, in the folios they are in)
  const bin = path.join(proj.dir, "mcpbox");
  fs.copyFileSync(BINARY, bin);
  const dropped = dropFromPageCache(bin);
  const warm = spawnSync(bin, ["validate"], { cwd: proj.dir, env: { ...process.env, MCPBOX_HOME: proj.home }, stdio: "ignore" });
  if (warm.status !== 0) throw new Error(`mcpbox validate of the bench config exited ${warm.status}`);
  const gw = await openGateway(proj, pids, bin);
  const idle = () => new Promise((r) => setTimeout(r, settle * 1000));
  const anonMb = (pid) => Number(/^Anonymous:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? NaN) / 1024;
  const idleNode = spawn(NODE, [...EXEC_ARGV, "-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  // the floor the SDK sets: the gateway speaks to clients with its Server and to servers with its Client, and each
  // package carries its own copy of the protocol's zod schemas (issue 15: what is left of the gateway's memory)
  const sdkOnly = 'await import("@modelcontextprotocol/client"); await import("@modelcontextprotocol/server"); setInterval(() => {}, 1000);';
  const sdkNode = spawn(NODE, [...EXEC_ARGV, "--input-type=module", "-e", sdkOnly], { stdio: "ignore", cwd: ROOT });
  try {
    const { tools } = await gw.client.listTools();
    const echoes = tools.filter((t) => t.name.endsWith("__echo")).map((t) => t.name);
    if (echoes.length !== 10) throw new Error(`tools/list had ${echoes.length} echo tools, not 10:\n${gw.stderr()}`);
    for (let i = 0; i < 3; i++) for (const tool of echoes) await timedEcho(gw.client, tool, i);
    const busyFirst = rssMb(gw.pid);
    await idle();
    const first = rssMb(gw.pid);
    const firstAnon = anonMb(gw.pid);
    const firstExe = executablePagesMb(gw.pid);
    const nodeAnon = anonMb(idleNode.pid); // the same time idle, at least `settle` s after its start
    const sdk = { rss: rssMb(sdkNode.pid), anon: anonMb(sdkNode.pid) };
    idleNode.kill();
    sdkNode.kill();
    // 16 in flight, spread over the ten servers
    let next = 0;
    const worker = async () => {
      while (next < calls) {
        const i = next++;
        await timedEcho(gw.client, echoes[i % echoes.length], i);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const busyAfter = rssMb(gw.pid);
    await idle();
    const after = rssMb(gw.pid);
    await gw.close().catch(() => {});
    const whole = await idleRssWrittenWhole(proj, pids, settle);
    const paged = dropped ? "the binary paged in by faults, as after a reboot" : "a copy of the binary that dd could not drop from the cache";
    return [
      { measure: `gateway RSS, 10 servers (warm home; ${paged}), after tools/list, 30 calls and ${settle} s idle`, value: first, unit: "MB", goal: { atMost: 80 } },
      { measure: "the same, run from a copy of the binary written by one write(), as some downloads leave it (for reference)", value: whole.rss, unit: "MB" },
      { measure: "the same: of these, the executable's pages (for reference)", value: whole.exe, unit: "MB" },
      { measure: B.nodeAnon, value: nodeAnon, unit: "MB" },
      { measure: B.sdkRss, value: sdk.rss, unit: "MB" },
      { measure: "the same Node's private (anonymous) part (reference)", value: sdk.anon, unit: "MB" },
      { measure: "gateway RSS after idle: its private part (anonymous: V8 heap, malloc)", value: firstAnon, unit: "MB", baseline: B.nodeAnon },
      { measure: "gateway RSS after idle: its file pages (the executable and libraries, shared with the page cache)", value: first - firstAnon, unit: "MB" },
      { measure: "gateway RSS after idle: of these, the executable's (how many: see memoryRows, the page cache decides)", value: firstExe, unit: "MB" },
      { measure: "gateway RSS, 10 servers, after tools/list and 30 calls, at once (for reference)", value: busyFirst, unit: "MB" },
      { measure: `gateway RSS growth over ${calls} more calls (16 in flight), then ${settle} s idle`, value: after - first, unit: "MB", goal: { atMost: 5 } },
      { measure: `gateway RSS growth over ${calls} more calls, at once: the busy high-water (for reference)`, value: busyAfter - first, unit: "MB" },
    ];
  } finally {
    idleNode.kill();
    sdkNode.kill();
    await gw.close().catch(() => {});
  }
}

/**
 * Drops `file` from the page cache (written back first, then posix_fadvise DONTNEED by dd): a process then pages it in
 * by faults, in small folios, as after a reboot or an eviction, or a copy made by cp. False when that failed (the
 * figure then says so). Pages that other running processes map stay.
 */
function dropFromPageCache(file) {
  const fd = fs.openSync(file, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return spawnSync("dd", [`if=${file}`, "iflag=nocache", "count=0", "status=none"], { stdio: "ignore" }).status === 0;
}

/** RSS of serve with ten servers, as the goal row takes it, run from a copy of the binary written by one write(). */
async function idleRssWrittenWhole(proj, pids, settle) {
  const copy = path.join(proj.dir, "mcpbox-written-whole");
  fs.writeFileSync(copy, fs.readFileSync(BINARY), { mode: 0o755 });
  const gw = await openGateway(proj, pids, copy);
  try {
    const { tools } = await gw.client.listTools();
    const echoes = tools.filter((t) => t.name.endsWith("__echo")).map((t) => t.name);
    for (let i = 0; i < 3; i++) for (const tool of echoes) await timedEcho(gw.client, tool, i);
    await new Promise((r) => setTimeout(r, settle * 1000));
    return { rss: rssMb(gw.pid), exe: executablePagesMb(gw.pid) };
  } finally {
    await gw.close().catch(() => {});
    fs.rmSync(copy, { force: true });
  }
}

/** RSS of the mappings of a process's own executable file, in MB. */
function executablePagesMb(pid) {
  const exe = fs.readlinkSync(`/proc/${pid}/exe`);
  let kb = 0;
  let mine = false;
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) mine = head[1] === exe;
    else if (mine && line.startsWith("Rss:")) kb += Number(/(\d+)/.exec(line)[1]);
  }
  return kb / 1024;
}

/** `validate` of a 20-server config next to `--version`, interleaved. */
function validateRows(bin, dirs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-bench-costs-"));
  dirs.push({ dir });
  writeConfig(dir, 20);
  const env = { ...process.env, MCPBOX_HOME: path.join(dir, ".mcpbox"), NO_COLOR: "1" };
  const t = timeCommands({ version: [bin, "--version"], validate: [bin, "validate"] }, { runs: 20, cwd: dir, env });
  return [
    timedRow(B.version, t.version),
    timedRow("mcpbox validate (20 servers)", t.validate, { baseline: B.version, goal: { ratioAtMost: 2 } }),
  ];
}

/**
 * Round by round: 5 direct starts → a call on each; spawn serve → tools/list → a call on each server (nothing cached:
 * a fresh MCPBOX_HOME); spawn serve again on the home the previous run left → tools/list (a cached catalog, when
 * there is one); and --version, timed in the same round.
 */
async function startRows(docker, image, bin, proj, pids, rounds = 3) {
  const samples = { direct: [], cold: [], cached: [], version: [], cachedCpu: [], coldCreate: [], coldCpu: [], unpacked: [] };
  for (let round = 0; round < rounds + 1; round++) {
    const direct = await directStartsWithCall(docker, image, 5);
    fs.rmSync(proj.home, { recursive: true, force: true });
    const cold = await serveToCalls(docker, proj, pids, 5);
    const cached = await serveToList(docker, proj, pids, 5);
    // nothing of the gateway's cached (catalog, lists) but V8 compile cache of the executable (written into the home from the binary at a first start),
    // which every command of a build but its first finds: what the nothing-cached start pays for them (for reference)
    for (const sub of ["cache/catalog", "cache/lists"]) fs.rmSync(path.join(proj.home, sub), { recursive: true, force: true });
    const unpacked = await serveToCalls(docker, proj, pids, 5);
    const version = timeCommands({ v: [bin, "--version"] }, { runs: 5, warmup: 1, env: { ...process.env, MCPBOX_HOME: proj.home } }).v.median;
    if (round >= 1) samples.direct.push(direct), samples.cold.push(cold.ms), samples.cached.push(cached.ms), samples.version.push(version), samples.unpacked.push(unpacked.ms);
    if (round >= 1 && cached.cpuMs !== undefined) samples.cachedCpu.push(cached.cpuMs);
    if (round >= 1 && cold.cpuMs !== undefined) samples.coldCpu.push(cold.cpuMs);
    if (round >= 1 && cold.firstCreateMs !== undefined) samples.coldCreate.push(cold.firstCreateMs);
  }
  // CPU beside the wall times: what the shared machine's load moves least (serve's user + system, all its threads, when
  // tools/list was answered; --version's from wait4)
  const versionCpu = cpuCommands({ v: [bin, "--version"] }, { runs: 10, warmup: 2, env: { ...process.env, MCPBOX_HOME: proj.home } })?.v;
  return [
    timedRow(B.version2, stats(samples.version)),
    timedRow("spawn mcpbox serve (5 servers) → tools/list, catalog from an earlier run", stats(samples.cached), { baseline: B.version2, goal: { ratioAtMost: 3 } }),
    ...(versionCpu && samples.cachedCpu.length > 0
      ? [
          timedRow(B.versionCpu, versionCpu),
          timedRow("serve's CPU (user + system) when that tools/list was answered (for reference)", stats(samples.cachedCpu), { baseline: B.versionCpu }),
        ]
      : []),
    timedRow(B.start, stats(samples.direct)),
    timedRow("spawn mcpbox serve (5 servers) → a call answered on each, nothing cached", stats(samples.cold), { baseline: B.start, goal: { ratioAtMost: 1.2 } }),
    timedRow("the same, the executable's compile cache kept from an earlier run (for reference)", stats(samples.unpacked), { baseline: B.start }),
    ...(samples.coldCreate.length > 0 ? [timedRow("nothing cached: spawn → serve's first container created (engine clock; for reference)", stats(samples.coldCreate))] : []),
    ...(samples.coldCpu.length > 0 ? [timedRow("nothing cached: serve's CPU (user + system) when the last call was answered (for reference)", stats(samples.coldCpu))] : []),
  ];
}

async function directStartsWithCall(docker, image, n) {
  const t0 = performance.now();
  const opened = await Promise.allSettled(
    Array.from({ length: n }, async (_, i) => {
      const d = await openDirect(docker, image, `start${i}`);
      await timedEcho(d.client, "echo", i);
      return d;
    }),
  );
  const ms = performance.now() - t0;
  await Promise.all(opened.map((o) => (o.status === "fulfilled" ? o.value.close() : undefined)));
  const failed = opened.find((o) => o.status === "rejected");
  if (failed) throw failed.reason;
  return ms;
}

/** ms to the last call answered; serve's CPU then (ms) and its first container's creation (engine clock, ms from the spawn) */
async function serveToCalls(docker, proj, pids, n) {
  const epoch = Date.now();
  const t0 = performance.now();
  const gw = await openGateway(proj, pids);
  try {
    const { tools } = await gw.client.listTools();
    const echoes = tools.filter((t) => t.name.endsWith("__echo")).map((t) => t.name);
    if (echoes.length !== n) throw new Error(`tools/list had ${echoes.length} echo tools, not ${n}:\n${gw.stderr()}`);
    await Promise.all(echoes.map((tool, i) => timedEcho(gw.client, tool, i)));
    const ms = performance.now() - t0;
    const cpu = cpuMicros(gw.pid);
    return { ms, cpuMs: cpu === undefined ? undefined : cpu / 1000, firstCreateMs: await firstCreated(docker, gw.pid, epoch) };
  } finally {
    await gw.close().catch(() => {});
    await gatewayGone(docker, gw.pid);
  }
}

/** When the engine made the first container of a gateway, in ms after `epoch` (undefined when it cannot say). */
async function firstCreated(docker, pid, epoch) {
  const listed = await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`mcpbox.owner-pid=${pid}`] }) }).catch(() => []);
  const created = await Promise.all(listed.map((c) => docker.getContainer(c.Id).inspect().then((i) => Date.parse(i.Created), () => NaN)));
  const first = Math.min(...created.filter(Number.isFinite));
  return Number.isFinite(first) ? first - epoch : undefined;
}

async function serveToList(docker, proj, pids, n) {
  const t0 = performance.now();
  const gw = await openGateway(proj, pids);
  try {
    const { tools } = await gw.client.listTools();
    const ms = performance.now() - t0;
    const cpu = cpuMicros(gw.pid);
    const echoes = tools.filter((t) => t.name.endsWith("__echo"));
    if (echoes.length !== n) throw new Error(`tools/list had ${echoes.length} echo tools, not ${n}:\n${gw.stderr()}`);
    return { ms, cpuMs: cpu === undefined ? undefined : cpu / 1000 };
  } finally {
    await gw.close().catch(() => {});
    await gatewayGone(docker, gw.pid);
  }
}
