/**
 * Helpers of the gateway bench section: `mcpbox serve` spawned by the SDK Client over stdio, and the baseline, the same
 * image started directly through dockerode with the same policy (containerOptions) and an SDK Client on its transport.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { resolveConfig } from "../../src/config/resolve.ts";
import { UserConfigSchema } from "../../src/config/schema.ts";
import { startServerContainer } from "../../src/docker/container.ts";
import { LABEL } from "../../src/policy/labels.ts";
import { containerOptions, dockerRunArgs } from "../../src/policy/run.ts";
import { BINARY, NODE } from "./_lib.mjs";

/** The session label of every baseline container this process starts, so cleanup removes exactly those. */
export const SESSION = `bench-gw-${process.pid}`;

/** A temp folder with a sandbox.config.ts of `n` copies of `image`, named s0..s(n-1). */
export function gatewayProject(image, n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-bench-gw-"));
  const servers = Array.from({ length: n }, (_, i) => `    s${i}: { image: ${JSON.stringify(image)} },`).join("\n");
  const text = `import { defineConfig } from "mcpbox";\n\nexport default defineConfig({\n  servers: {\n${servers}\n  },\n});\n`;
  fs.writeFileSync(path.join(dir, "sandbox.config.ts"), text);
  return { dir, config: path.join(dir, "sandbox.config.ts"), home: path.join(dir, ".mcpbox") };
}

/** Spawns `dist/mcpbox serve -c <config>` (or `bin`'s) and connects; `connected` is when initialize was answered. */
export async function openGateway(project, pids, bin = BINARY) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["serve", "-c", project.config],
    env: { ...process.env, MCPBOX_HOME: project.home, NO_COLOR: "1" },
    stderr: "pipe",
    cwd: project.dir,
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const client = new Client({ name: "bench", version: "1" });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`mcpbox serve did not connect: ${e instanceof Error ? e.message : e}\n${stderr}`);
  }
  pids.add(transport.pid);
  return { client, pid: transport.pid, stderr: () => stderr, close: () => client.close() };
}

/** Create options of one container of `image` under the default policy (containerOptions). */
export function directContainerOptions(image, name, session = SESSION) {
  const parsed = UserConfigSchema.parse({ servers: { [name]: { image } } });
  const config = resolveConfig(parsed, path.join(os.tmpdir(), "mcpbox-bench-gw.json"));
  const ctx = { session, configHash: config.hash, ownerPid: process.pid, image };
  return { ...containerOptions(config.servers[0], ctx, {}), name: `${session}-${name}-${Math.random().toString(36).slice(2, 8)}` };
}

/** The baseline: one container of `image` under the default policy, reached directly through dockerode. */
export async function openDirect(docker, image, name) {
  const container = await startServerContainer(docker, directContainerOptions(image, name));
  const client = new Client({ name: "bench", version: "1" });
  try {
    await client.connect(container.transport);
  } catch (e) {
    await container.stop(0);
    throw e;
  }
  return { client, close: async () => (await client.close().catch(() => {}), await container.stop(1000)) };
}

/** `docker run -i` of `image` with the argv `mcpbox config --mode direct` gives clients (what users paste today), labelled for cleanup. */
export async function openDockerRun(image, name = "dockerrun") {
  const parsed = UserConfigSchema.parse({ servers: { [name]: { image } } });
  const config = resolveConfig(parsed, path.join(os.tmpdir(), "mcpbox-bench-gw.json"));
  const [run, ...rest] = dockerRunArgs(config.servers[0], { image, configHash: config.hash });
  const transport = new StdioClientTransport({ command: "docker", args: [run, "--label", `${LABEL.session}=${SESSION}`, ...rest], stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** The byte relay (_byte-relay.mjs) in front of a container of `image`, and an SDK Client spawning it. */
export async function openRelay(image) {
  const transport = new StdioClientTransport({
    command: NODE,
    args: [path.join(import.meta.dirname, "_byte-relay.mjs"), image, SESSION],
    stderr: "inherit",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

/** One echo tools/call, in ms; throws when the answer is not the echo (a broken path never shows as fast). */
export async function timedEcho(client, tool, i) {
  const message = `bench ${i}`;
  const t0 = performance.now();
  const r = await client.callTool({ name: tool, arguments: { message } });
  const ms = performance.now() - t0;
  if (r.isError || !JSON.stringify(r.content).includes(message)) throw new Error(`${tool} failed: ${JSON.stringify(r.content)}`);
  return ms;
}

/** Calls per second of `total` echo calls with `inFlight` outstanding at any time. */
export async function throughput(client, tool, total, inFlight) {
  let next = 0;
  const worker = async () => {
    while (next < total) await timedEcho(client, tool, next++);
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return total / ((performance.now() - t0) / 1000);
}

/** CPU time (user + system, all threads) a process has used so far, in µs; undefined where /proc is not there. */
export function cpuMicros(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1e6) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100; // USER_HZ, 100 on every Linux this runs on

/** VmRSS of a process in MB. */
export function rssMb(pid) {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** Waits until no container of a gateway pid is left (it removes its own on exit), at most `ms`. */
export async function gatewayGone(docker, pid, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await containersOf(docker, `${LABEL.ownerPid}=${pid}`)).length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Removes every container this bench started: the baseline's session, and whatever a gateway it spawned left. */
export async function cleanup(docker, gatewayPids) {
  const filters = [`${LABEL.session}=${SESSION}`, ...[...gatewayPids].map((pid) => `${LABEL.ownerPid}=${pid}`)];
  for (const f of filters) {
    for (const c of await containersOf(docker, f).catch(() => [])) {
      await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
    }
  }
}

function containersOf(docker, label) {
  return docker.listContainers({ all: true, filters: JSON.stringify({ label: [label] }) });
}
