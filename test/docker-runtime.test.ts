/**
 * The Docker runtime layer against the real engine: a real server-everything in a container started with the
 * hardened policy, reached by the real SDK client over the container's stdio; cleanup and the SIGKILL reaper.
 */
import { execFileSync, spawn } from "node:child_process";
import net from "node:net";
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import Dockerode from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ServerConfig } from "../src/config/schema.ts";
import { engine, withOwnAgent } from "../src/docker/engine.ts";
import { isAlive, removeSession, sessionContainers, spawnReaper, sweepDeadOwners } from "../src/docker/cleanup.ts";
import { startServerContainer, type ServerContainer, type StartOptions } from "../src/docker/container.ts";
import { containerOptions, dockerRunArgs } from "../src/policy/run.ts";
import { ensureTestImage, REPO } from "./helpers/images.ts";
import { resolvedServer } from "./helpers/servers.ts";

const docker = engine();
const EVERYTHING = "mcpbox-test/everything:latest";
const RUN = `rt${process.pid}`;
const sessions = new Set<string>();
const MiB = 1024 * 1024;

function session(name: string): string {
  const s = `${RUN}-${name}`;
  sessions.add(s);
  return s;
}

async function start(name: string, config: Partial<ServerConfig> = {}, o: StartOptions & { ownerPid?: number; ownerHost?: string } = {}) {
  const server = resolvedServer(name, { image: EVERYTHING, ...config } as ServerConfig);
  const ctx = { session: session(name), configHash: "testhash", ownerPid: o.ownerPid ?? process.pid, image: EVERYTHING, ownerHost: o.ownerHost };
  return startServerContainer(docker, containerOptions(server, ctx, { SECRET_TOKEN: "not-in-argv" }), o);
}

async function connect(c: ServerContainer): Promise<Client> {
  const client = new Client({ name: "docker-runtime-test", version: "1.0.0" });
  await client.connect(c.transport);
  return client;
}

const gone = (id: string) => docker.getContainer(id).inspect().then(() => false, (e) => e.statusCode === 404);

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - t0;
}

/** A node script run as the container's command (server-everything's image has node and the SDK under /app). */
const nodeScript = (code: string) => ({ command: ["node", "--input-type=module", "-e", code] });

beforeAll(async () => {
  await ensureTestImage(EVERYTHING);
});

afterAll(async () => {
  for (const s of sessions) await removeSession(docker, s);
});

describe("a server container", () => {
  let c: ServerContainer;
  let client: Client;

  beforeAll(async () => {
    const t0 = performance.now();
    c = await start("everything");
    const started = performance.now();
    client = await connect(c);
    report("cold-start", { startMs: Math.round(started - t0), initializedMs: Math.round(performance.now() - t0) });
  });

  afterAll(async () => {
    await c?.stop();
  });

  it("serves MCP over its stdio to the SDK client", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("echo");
    const result = await client.callTool({ name: "echo", arguments: { message: "hello" } });
    expect(result.content).toEqual([{ type: "text", text: "Echo: hello" }]);
  });

  it("runs with the hardened policy and the five labels", async () => {
    const info = await docker.getContainer(c.id).inspect();
    const h = info.HostConfig;
    expect(h.NetworkMode).toBe("none");
    expect(h.ReadonlyRootfs).toBe(true);
    expect(info.Config.User).toBe("1000:1000");
    expect(h.CapDrop).toEqual(["ALL"]);
    expect(h.SecurityOpt).toContain("no-new-privileges:true");
    expect(h.PidsLimit).toBe(256);
    expect(h.Memory).toBe(512 * MiB);
    expect(h.MemorySwap).toBe(h.Memory);
    expect(h.NanoCpus).toBe(1e9);
    expect(h.Init).toBe(true);
    expect(h.AutoRemove).toBe(false);
    expect(h.Tmpfs).toEqual({ "/tmp": `rw,noexec,nosuid,nodev,size=${64 * MiB}` });
    expect(info.Config.Tty).toBe(false);
    expect(info.Config.OpenStdin).toBe(true);
    expect(info.Config.Labels).toMatchObject({
      "mcpbox.managed": "true",
      "mcpbox.session": `${RUN}-everything`,
      "mcpbox.server": "everything",
      "mcpbox.owner-pid": String(process.pid),
      "mcpbox.config-hash": "testhash",
      "mcpbox.owner-host": os.hostname(),
    });
    expect(info.Config.Env).toContain("SECRET_TOKEN=not-in-argv");
    expect(info.Args.join(" ")).not.toContain("not-in-argv");
  });

  it("measures the echo round trip through the container's stdio, next to the docker CLI's", async () => {
    // baseline: the same server and policy behind `docker run -i` (direct mode), the SDK's own stdio transport
    const argv = dockerRunArgs(resolvedServer("baseline", { image: EVERYTHING }), { image: EVERYTHING });
    const at = argv.indexOf("--"); // flags before it, the image and its command after
    const cli = new StdioClientTransport({ command: "docker", args: [...argv.slice(0, at), "--label", `mcpbox.session=${session("baseline")}`, ...argv.slice(at)] });
    const baseline = new Client({ name: "baseline", version: "1.0.0" });
    await baseline.connect(cli);
    const ours: number[] = [];
    const theirs: number[] = [];
    const echo = async (c: Client, into: number[], i: number) => {
      const t0 = performance.now();
      await c.callTool({ name: "echo", arguments: { message: `m${i}` } });
      into.push(performance.now() - t0);
    };
    for (let block = 0; block < 12; block++) {
      for (let i = 0; i < 25; i++) await echo(client, ours, i);
      for (let i = 0; i < 25; i++) await echo(baseline, theirs, i);
    }
    await baseline.close();
    const stats = (xs: number[]) => {
      const sorted = xs.slice(50).sort((a, b) => a - b); // the first calls warm up the JIT
      const at = (q: number) => Number(sorted[Math.floor(sorted.length * q)]!.toFixed(3));
      return { calls: sorted.length, p50ms: at(0.5), p95ms: at(0.95) };
    };
    report("echo-round-trip", stats(ours));
    report("echo-round-trip-docker-cli", stats(theirs));
    expect(ours).toHaveLength(300);
  });

  it("stop() stops and removes the container, and is idempotent", async () => {
    const other = await start("stopme");
    await connect(other);
    const t0 = performance.now();
    await Promise.all([other.stop(), other.stop()]);
    report("stop", { ms: Math.round(performance.now() - t0) });
    expect(await gone(other.id)).toBe(true);
    expect((await other.exited).exitCode).not.toBe(0);
    await other.stop();
  });
});

describe("limits and hostile output", () => {
  it("enforces the policy inside the container", async () => {
    const probe = `
      import fs from "node:fs"; import net from "node:net";
import os from "node:os";
      const status = fs.readFileSync("/proc/self/status", "utf8");
      const field = (k) => status.match(new RegExp(k + ":\\\\s*(\\\\S+)"))[1];
      let rootWrite = "ok"; try { fs.writeFileSync("/x", "x"); } catch (e) { rootWrite = e.code; }
      let tmpWrite = "ok"; try { fs.writeFileSync("/tmp/x", "x"); } catch (e) { tmpWrite = e.code; }
      console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), capEff: field("CapEff"),
        noNewPrivs: field("NoNewPrivs"), rootWrite, tmpWrite, nets: Object.keys(os.networkInterfaces()),
        mounts: fs.readFileSync("/proc/mounts", "utf8").split("\\n").filter((l) => l.includes(" /tmp ")) }));`;
    const lines: string[] = [];
    const c = await start("probe", nodeScript(probe), { onNonJsonLine: (l) => lines.push(l) });
    await c.transport.start();
    expect((await c.exited).exitCode).toBe(0);
    const seen = JSON.parse(lines[0]!);
    expect(seen).toMatchObject({ uid: 1000, gid: 1000, capEff: "0000000000000000", noNewPrivs: "1", rootWrite: "EROFS", tmpWrite: "ok", nets: ["lo"] });
    expect(seen.mounts[0]).toMatch(/noexec/);
    expect(await gone(c.id)).toBe(true);
  });

  it("keeps serving when the server prints non-JSON lines on stdout", async () => {
    const server = `
      process.stdout.write("banner: not JSON\\n{\\"log\\":\\"json but not JSON-RPC\\"}\\n");
      setInterval(() => process.stdout.write("noise " + Date.now() + "\\n"), 20);
      process.argv = [process.argv[0], "index.js", "stdio"];
      await import("/app/node_modules/@modelcontextprotocol/server-everything/dist/index.js");`;
    const dropped: string[] = [];
    const c = await start("noisy", nodeScript(server), { onNonJsonLine: (l) => dropped.push(l) });
    const client = await connect(c);
    for (let i = 0; i < 5; i++) {
      const r = await client.callTool({ name: "echo", arguments: { message: `x${i}` } });
      expect(r.content).toEqual([{ type: "text", text: `Echo: x${i}` }]);
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(dropped.slice(0, 2)).toEqual(["banner: not JSON", '{"log":"json but not JSON-RPC"}']);
    expect(dropped.some((l) => l.startsWith("noise "))).toBe(true);
    await c.stop();
  });

  it("drops a message over the size cap with a clear error and keeps serving", async () => {
    const server = `
      import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
      import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
      import { z } from "zod";
      const s = new McpServer({ name: "big", version: "1.0.0" });
      s.registerTool("big", { inputSchema: { bytes: z.number() } }, async ({ bytes }) => ({ content: [{ type: "text", text: "a".repeat(bytes) }] }));
      await s.connect(new StdioServerTransport());`;
    const errors: Error[] = [];
    const c = await start("big", nodeScript(server), { maxMessageBytes: 1 * MiB });
    const client = await connect(c);
    c.transport.onerror = ((prev) => (e: Error) => (errors.push(e), prev?.(e)))(c.transport.onerror);
    expect(await client.callTool({ name: "big", arguments: { bytes: 1000 } })).toMatchObject({ content: [{ text: "a".repeat(1000) }] });
    await expect(client.callTool({ name: "big", arguments: { bytes: 3 * MiB } })).rejects.toThrow(/larger than the 1 MiB message limit/);
    expect(errors.some((e) => e.name === "MessageTooLargeError")).toBe(true);
    expect(await client.callTool({ name: "big", arguments: { bytes: 10 } })).toMatchObject({ content: [{ text: "a".repeat(10) }] });
    await c.stop();
  });

  it("reports an OOM kill (no AutoRemove) and removes the container", async () => {
    const hog = `const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1));`;
    const c = await start("hog", { ...nodeScript(hog), limits: { memory: "64m" } });
    await c.transport.start();
    expect(await c.exited).toEqual({ exitCode: 137, oomKilled: true });
    expect(await gone(c.id)).toBe(true);
  });

  it("gives the server's stderr lines to listeners", async () => {
    const c = await start("stderr", nodeScript(`console.error("line one"); console.error("line two"); setInterval(() => {}, 1000);`));
    const lines: string[] = [];
    c.onStderr((l) => lines.push(l));
    await until(async () => c.recentStderr().length >= 2, 30_000);
    expect(c.recentStderr()).toEqual(["line one", "line two"]);
    await c.stop();
  });
});

describe("other engine connections", () => {
  it("serves over a TCP engine address too (no JSON body on the attach request)", async () => {
    // a local TCP port in front of the engine's unix socket stands in for DOCKER_HOST=tcp://...
    const proxy = net.createServer((c) => {
      const upstream = net.connect("/var/run/docker.sock");
      c.pipe(upstream).pipe(c);
      c.on("error", () => upstream.destroy());
      upstream.on("error", () => c.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const port = (proxy.address() as net.AddressInfo).port;
    // on mcpbox's own agent, as engine() makes it for a tcp:// DOCKER_HOST (never Node's global one, which may proxy)
    const tcp = withOwnAgent(new Dockerode({ host: "127.0.0.1", port, protocol: "http" }));
    expect((tcp.modem as unknown as { agent?: unknown }).agent).toBeDefined();
    const server = resolvedServer("tcp", { image: EVERYTHING, ...nodeScript(`
      process.stdin.once("data", (b) => { process.stdin.pause(); process.stdin.unshift(b);
        process.stderr.write("first stdin bytes: " + b.toString().slice(0, 40) + "\\n");
        process.argv = [process.argv[0], "index.js", "stdio"];
        import("/app/node_modules/@modelcontextprotocol/server-everything/dist/index.js").then(() => process.stdin.resume()); });`) });
    const s = session("tcp");
    const c = await startServerContainer(tcp, containerOptions(server, { session: s, configHash: "h", ownerPid: process.pid, image: EVERYTHING }, {}));
    const client = await connect(c);
    const r = await client.callTool({ name: "echo", arguments: { message: "over tcp" } });
    expect(r.content).toEqual([{ type: "text", text: "Echo: over tcp" }]);
    expect(c.recentStderr().find((l) => l.startsWith("first stdin bytes"))).toMatch(/^first stdin bytes: \{"(method|jsonrpc)"/);
    await c.stop();
    proxy.close();
  });
});

describe("failures", () => {
  it("says which image is missing and leaves nothing behind", async () => {
    const server = resolvedServer("missing", { image: "mcpbox-test/does-not-exist:1" });
    const s = session("missing");
    const options = containerOptions(server, { session: s, configHash: "h", ownerPid: process.pid, image: "mcpbox-test/does-not-exist:1" }, {});
    await expect(startServerContainer(docker, options)).rejects.toThrow(/image mcpbox-test\/does-not-exist:1 not found for server missing/);
    expect(await sessionContainers(docker, s)).toEqual([]);
  });

  it("reports a command that does not exist as an exit (the init process runs it) and removes the container", async () => {
    const c = await start("badcmd", { command: ["/no/such/binary"] });
    await c.transport.start();
    expect((await c.exited).exitCode).toBe(127);
    expect(c.recentStderr().join("\n")).toMatch(/no\/such\/binary/);
    expect(await sessionContainers(docker, `${RUN}-badcmd`)).toEqual([]);
  });
});

describe("dockerRunArgs", () => {
  it("makes the docker CLI create the same container as containerOptions", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-runargs-"));
    const server = resolvedServer("direct", {
      image: EVERYTHING,
      mounts: [{ source: dir, target: "/data" }, { source: dir, target: "/out", readOnly: false }],
      limits: { memory: "256m", cpus: 0.5, pids: 64, tmpfs: "16m" },
      env: { MODE: "test" },
      secrets: { API_TOKEN: { env: "HOST_TOKEN" } },
      command: ["node", "/app/node_modules/@modelcontextprotocol/server-everything/dist/index.js"],
      args: ["stdio"],
    } as ServerConfig);
    const s = session("direct");
    const ctx = { session: s, configHash: "testhash", ownerPid: process.pid, image: EVERYTHING };
    const api = await docker.createContainer(containerOptions(server, ctx, { API_TOKEN: "t0ken" }));
    const argv = dockerRunArgs(server, { image: EVERYTHING, configHash: "testhash" });
    expect(argv.slice(0, 3)).toEqual(["run", "-i", "--rm"]);
    const at = argv.indexOf("--"); // flags before it, the image and its command after
    const cliArgs = ["create", ...argv.slice(1, at), "--label", `mcpbox.session=${s}`, ...argv.slice(at)];
    const cliId = execFileSync("docker", cliArgs, { encoding: "utf8", env: { ...process.env, API_TOKEN: "t0ken" } }).trim();
    const [a, b] = await Promise.all([api.inspect(), docker.getContainer(cliId).inspect()]);
    const pick = (i: typeof a) => ({
      User: i.Config.User, Env: [...(i.Config.Env ?? [])].sort(), // the CLI keeps the order of neither -e nor -v
      Entrypoint: i.Config.Entrypoint, Cmd: i.Config.Cmd, Tty: i.Config.Tty,
      OpenStdin: i.Config.OpenStdin, StdinOnce: i.Config.StdinOnce, AttachStdin: i.Config.AttachStdin,
      NetworkMode: i.HostConfig.NetworkMode, ReadonlyRootfs: i.HostConfig.ReadonlyRootfs, CapDrop: i.HostConfig.CapDrop,
      SecurityOpt: i.HostConfig.SecurityOpt, Init: i.HostConfig.Init, Memory: i.HostConfig.Memory,
      MemorySwap: i.HostConfig.MemorySwap, NanoCpus: i.HostConfig.NanoCpus, PidsLimit: i.HostConfig.PidsLimit,
      Tmpfs: i.HostConfig.Tmpfs, Binds: [...(i.HostConfig.Binds ?? [])].sort(), Ulimits: i.HostConfig.Ulimits,
    });
    expect(pick(b)).toEqual(pick(a));
    expect(b.Config.Env).toContain("API_TOKEN=t0ken");
    expect(argv.join(" ")).not.toContain("t0ken");
    await removeSession(docker, s);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("cleanup", () => {
  it("sweeps containers whose owner process is dead, and only those", async () => {
    const dead = await deadPid();
    const orphan = await start("orphan", {}, { ownerPid: dead });
    const owned = await start("owned", {});
    const elsewhere = await start("elsewhere", {}, { ownerPid: dead, ownerHost: "another-host" });
    await sweepDeadOwners(docker); // its count may be 0: a gateway starting in parallel sweeps dead owners too
    expect(await gone(orphan.id)).toBe(true);
    expect(await gone(owned.id)).toBe(false);
    expect(await gone(elsewhere.id)).toBe(false); // its pid means nothing on this host
    await Promise.all([owned.stop(), elsewhere.stop()]);
  });

  it("removes a session's containers", async () => {
    const a = await start("sess", {});
    await removeSession(docker, `${RUN}-sess`);
    expect(await gone(a.id)).toBe(true);
    expect(await sessionContainers(docker, `${RUN}-sess`)).toEqual([]);
  });

  it("a reaper removes the containers of a gateway killed with SIGKILL within 10 s", async () => {
    const s = session("killed");
    const owner = spawn(process.execPath, [path.join(REPO, "test/helpers/reaper-owner.ts"), s, EVERYTHING], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const id = await new Promise<string>((resolve, reject) => {
      owner.stdout!.on("data", (b: Buffer) => {
        const m = /ready (\w+)/.exec(b.toString());
        if (m) resolve(m[1]!);
      });
      owner.once("exit", (code) => reject(new Error(`owner exited early (${code})`)));
    });
    expect(await gone(id)).toBe(false);
    owner.kill("SIGKILL");
    const ms = await until(() => gone(id), 10_000);
    report("reaper-after-sigkill", { ms });
  });

  it("a reaper started for another process removes its session after that process dies", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    const c = await start("watched", {}, { ownerPid: child.pid! });
    const reaper = spawnReaper(`${RUN}-watched`, child.pid!);
    child.kill("SIGKILL");
    const ms = await until(() => gone(c.id), 10_000);
    report("reaper-foreign-owner", { ms });
    await until(async () => !isAlive(reaper!), 60_000); // and it exits once the session stays empty
  });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((r) => child.once("exit", r));
  return child.pid!;
}

/** Figures for the lead's benchmark: printed and kept in .mcpbox-test/bench/docker-runtime.json. */
function report(name: string, figures: Record<string, number>): void {
  console.log(`[docker-runtime] ${name}: ${JSON.stringify(figures)}`);
  const file = path.join(REPO, ".mcpbox-test/bench/docker-runtime.json");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const all = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  all[name] = { ...figures, at: new Date().toISOString() };
  fs.writeFileSync(file, JSON.stringify(all, null, 2) + "\n");
}
