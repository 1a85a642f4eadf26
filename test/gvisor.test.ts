/**
 * runtime: "gvisor" end to end (SPEC 2.2, issue 16): through dist/mcpbox serve and the real engine, server-everything,
 * server-filesystem and the code runner run under the engine's runsc (a user-space kernel): their tools answer, a
 * read-only mount still refuses a write, the engine's inspect says runsc, the kernel seen from inside is gVisor's, and
 * the code runner's adversarial cases stay bounded. A runtime the engine lacks fails clearly, once, before any container.
 * Needs runsc registered with the engine (scripts/ci/lib.sh ensure_gvisor, run by .ci/run and `scripts/setup.sh test`):
 * without it every test here fails, loudly.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { connect, containersOf, mcpboxCommand, project, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";
import { ensureTestImage } from "./helpers/images.ts";

const docker = engine();
const CALL = { timeout: 120_000 };

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
  timedOut: boolean;
  oomKilled: boolean;
}

let p: TestProject;
let gw: Connected;
let hostServer: net.Server | undefined;

/** The runtimes the engine lists; the test fails here, with the fix, when runsc is not among them. */
async function requireRunsc(): Promise<void> {
  const runtimes = Object.keys(((await docker.info()) as { Runtimes?: Record<string, unknown> }).Runtimes ?? {});
  if (!runtimes.includes("runsc")) {
    throw new Error(
      `the engine does not offer runsc (it lists: ${runtimes.join(", ")}): run \`bash -c 'source scripts/ci/lib.sh; ensure_gvisor'\` as root ` +
        "(it installs Debian's runsc, registers it in /etc/docker/daemon.json and reloads dockerd), as .ci/run does",
    );
  }
}

const run = async (server: string, language: string, code: string): Promise<Run> => {
  const r = await gw.client.callTool({ name: `${server}__run_code`, arguments: { language, code } }, undefined, CALL);
  return r.structuredContent as unknown as Run;
};

const textOf = (r: unknown) => (((r as { content?: unknown }).content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");

/** Runs `cmd` inside a running container through the engine (docker exec), as the container's own user. */
async function execIn(id: string, cmd: string[]): Promise<string> {
  const exec = await docker.getContainer(id).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  const out = new (await import("node:stream")).PassThrough();
  out.on("data", (c: Buffer) => chunks.push(c));
  docker.modem.demuxStream(stream, out, out);
  await new Promise((resolve) => stream.on("end", resolve));
  return Buffer.concat(chunks).toString("utf8");
}

beforeAll(async () => {
  await requireRunsc();
  const [everything, filesystem] = [await ensureTestImage("mcpbox-test/everything:latest"), await ensureTestImage("mcpbox-test/filesystem:latest")];
  p = project(
    {
      ev: { image: everything },
      fs: { image: filesystem, args: ["/data"], mounts: [{ source: "./files", target: "/data" }] },
      code: { builtin: "code-runner", languages: ["python", "bash"], pool: 1, limits: { memory: "128m", pids: 64 }, timeouts: { runMs: 30_000 } },
      quick: { builtin: "code-runner", languages: ["node", "bash"], limits: { pids: 64 }, timeouts: { runMs: 5000 } },
    },
    { defaults: { runtime: "gvisor" } },
  );
  fs.mkdirSync(path.join(p.dir, "files"));
  fs.chmodSync(path.join(p.dir, "files"), 0o777); // only the read-only mount can refuse a write, not the folder's mode
  fs.writeFileSync(path.join(p.dir, "files", "hello.txt"), "hello from the host\n");
  gw = await connect(p);
}, 600_000);

afterAll(async () => {
  hostServer?.close();
  if (gw) {
    await gw.client.close();
    await waitFor("the gateway's containers to be removed", async () => (await containersOf(gw.pid)).length === 0, 60_000);
  }
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe('servers under runtime: "gvisor"', () => {
  it("lists every server's tools and answers calls", async () => {
    const names = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["ev__echo", "fs__read_text_file", "fs__write_file", "code__run_code", "quick__run_code"]));
    const echo = await gw.client.callTool({ name: "ev__echo", arguments: { message: "under gVisor" } }, undefined, CALL);
    expect(textOf(echo)).toContain("under gVisor");
    const read = await gw.client.callTool({ name: "fs__read_text_file", arguments: { path: "/data/hello.txt" } }, undefined, CALL);
    expect(textOf(read)).toContain("hello from the host");
  });

  it("keeps a read-only mount read-only: the write is refused and nothing reaches the host", async () => {
    const w = await gw.client.callTool({ name: "fs__write_file", arguments: { path: "/data/new.txt", content: "x" } }, undefined, CALL);
    expect(w.isError).toBe(true);
    // runc says EROFS; gVisor's gofer says EACCES for a read-only bind mount (the folder itself is 0777)
    expect(textOf(w)).toMatch(/read-only file system|EROFS|EACCES|permission denied/i);
    expect(fs.existsSync(path.join(p.dir, "files", "new.txt"))).toBe(false);
  });

  it("makes every container (servers and the code runner's) with the engine's runsc", async () => {
    await run("code", "bash", "true"); // the pool has its warm container by now
    const containers = await waitFor("the servers' and the pool's containers", async () => {
      const list = await containersOf(gw.pid);
      return list.length >= 3 ? list : undefined;
    }, 60_000);
    for (const c of containers) {
      const info = await docker.getContainer(c.Id).inspect();
      expect(info.HostConfig.Runtime, info.Name).toBe("runsc");
      // limits.pids as gVisor's own nproc; the engine's pids limit sits above the sandbox's host threads
      expect(info.HostConfig.Ulimits, info.Name).toContainEqual(expect.objectContaining({ Name: "nproc", Hard: expect.any(Number) }));
      const nproc = info.HostConfig.Ulimits!.find((u) => u.Name === "nproc")!.Hard!;
      expect(nproc, info.Name).toBeLessThan(8192);
      expect(info.HostConfig.PidsLimit, info.Name).toBeGreaterThan(45 + 8 * nproc);
    }
    const servers = containers.map((c) => c.Labels["mcpbox.server"]);
    expect(servers).toEqual(expect.arrayContaining(["ev", "fs", "code"]));
  });

  it("shows gVisor's kernel inside the server containers, not the host's", async () => {
    const list = await containersOf(gw.pid);
    for (const name of ["ev", "fs"]) {
      const c = list.find((x) => x.Labels["mcpbox.server"] === name);
      expect(c, `${name}'s container`).toBeDefined();
      const version = await execIn(c!.Id, ["cat", "/proc/version"]);
      expect(version).toMatch(/^Linux version \S+/);
      expect(version).not.toContain(os.release()); // the host's kernel, as runc shows it
      expect(await execIn(c!.Id, ["sh", "-c", "dmesg 2>&1 | head -n 1"])).toContain("Starting gVisor");
    }
  });

  it("shows gVisor's kernel to the code runner's runs (dmesg: Starting gVisor)", async () => {
    const code = "import subprocess\nprint(open('/proc/version').read().strip())\nprint(subprocess.run(['dmesg'], capture_output=True, text=True).stdout[:200])";
    const r = await run("code", "python", code);
    expect(r.exitCode, JSON.stringify(r)).toBe(0);
    expect(r.stdout).toContain("Starting gVisor");
    expect(r.stdout).not.toContain(os.release());
  });
});

describe("the code runner's adversarial cases under gVisor", () => {
  it("kills an endless loop at its timeout", async () => {
    const r = await run("quick", "node", "for (;;) {}");
    expect(r).toMatchObject({ timedOut: true, oomKilled: false });
  });

  it("reports a memory bomb as out of memory", async () => {
    const r = await run("code", "python", "chunks = []\nwhile True:\n    chunks.append('x' * 50_000_000)");
    expect(r.oomKilled, JSON.stringify({ ...r, stdout: r.stdout.slice(-300), stderr: r.stderr.slice(-600) })).toBe(true);
    expect(r.exitCode).not.toBe(0);
  });

  it("returns from a bash fork bomb and stays healthy", async () => {
    const r = await run("quick", "bash", ":(){ :|:& };:; sleep 60");
    expect(r.timedOut || r.exitCode !== 0).toBe(true);
    expect((await run("quick", "bash", "echo still here")).stdout).toBe("still here\n");
  });

  it("runs a bash pipeline to its end: output, exit code and trailer (the sandbox's own threads are not the run's pids)", async () => {
    // limits.pids 64: the engine's pids limit once counted runsc's host threads (about 45 idle, 8 per process), a
    // pipeline ran the sandbox out of them and gVisor died (exit 2, output lost)
    for (let i = 0; i < 3; i++) {
      const r = await run("code", "bash", "seq 1 5 | cat | cat | cat | head -n 3; echo a | head; echo done");
      expect(r, JSON.stringify(r)).toMatchObject({ stdout: "1\n2\n3\na\ndone\n", exitCode: 0, timedOut: false });
    }
  });

  it("still bounds a run's processes at limits.pids: a spawn fails with EAGAIN, the run ends normally", async () => {
    const code = [
      "import os",
      "n = 0",
      "try:",
      "    for _ in range(200):",
      "        os.posix_spawn('/bin/sleep', ['sleep', '20'], os.environ)",
      "        n += 1",
      "except OSError as e:",
      "    print('stopped', e.errno == 11)",
      "print('forked', n)",
    ].join("\n");
    const r = await run("code", "python", code);
    expect(r.stdout, JSON.stringify(r)).toContain("stopped True");
    const forked = Number(/forked (\d+)/.exec(r.stdout)?.[1]);
    expect(forked).toBeGreaterThan(40);
    expect(forked).toBeLessThan(64); // limits.pids: 64, the launcher and the run among them
    expect(r.timedOut).toBe(false);
  });

  it("has no network: only loopback, and a listener on the host's bridge address is out of reach", async () => {
    // a listener the test owns, on every host address: the docker bridge's gateway is one of them
    hostServer = net.createServer((s) => s.end("reached\n")).listen(0, "0.0.0.0");
    await new Promise((r) => hostServer!.once("listening", r));
    const port = (hostServer.address() as net.AddressInfo).port;
    const bridge = (await docker.getNetwork("bridge").inspect()).IPAM?.Config?.[0]?.Gateway ?? "172.17.0.1";
    const code = [
      "import socket",
      "print(sorted(n for _, n in socket.if_nameindex()))",
      "try:",
      `  s = socket.create_connection(('${bridge}', ${port}), timeout=3)`,
      "  print('connected', s.recv(16))",
      "except OSError as e:",
      "  print('refused:', e)",
    ].join("\n");
    const r = await run("code", "python", code);
    expect(r.stdout).toMatch(/^\['lo'\]\nrefused: /);
    expect(r.stdout).not.toContain("connected");
  });
});

describe("a runtime the engine does not offer", () => {
  const missing = () => project({ ev: { image: "mcpbox-test/everything:latest", runtime: "gvisor" } }, { engine: { runtimes: { gvisor: "nosuch" } } });

  it("serve: the server fails once, naming it, the runtime and the fix; no container is made", async () => {
    const bad = missing();
    const g = await connect(bad);
    try {
      const names = (await g.client.listTools()).tools.map((t) => t.name);
      expect(names.filter((n) => n.startsWith("ev__"))).toEqual([]);
      const called = await g.client.callTool({ name: "ev__echo", arguments: { message: "x" } }, undefined, CALL).catch((e: unknown) => ({ isError: true, content: [{ type: "text", text: String(e) }] }));
      expect(called.isError).toBe(true);
      const line = 'server ev needs runtime "gvisor" (the engine\'s "nosuch"), which the Docker engine does not offer';
      await waitFor("the failure on stderr", () => g.stderr().includes(line) || undefined);
      expect(g.stderr()).toContain("engine.runtimes.gvisor");
      expect(g.stderr().split(line).length - 1).toBe(1); // told once
      expect(await containersOf(g.pid)).toEqual([]);
    } finally {
      await g.client.close();
      fs.rmSync(bad.dir, { recursive: true, force: true });
    }
  });

  it("tools: exits 1 with the same clear failure and no stack trace", () => {
    const bad = missing();
    try {
      const { command, args } = mcpboxCommand();
      const r = spawnSync(command, [...args, "tools", "-c", bad.config], {
        cwd: bad.dir, encoding: "utf8", timeout: 120_000, env: { ...process.env, MCPBOX_HOME: bad.home, NO_COLOR: "1" },
      });
      expect(r.status, r.stdout + r.stderr).toBe(1);
      expect(r.stderr, r.stderr).toContain('server ev needs runtime "gvisor" (the engine\'s "nosuch")');
      expect(r.stderr, r.stderr).toMatch(/register gVisor's runsc with the engine under the name "nosuch", or set engine\.runtimes\.gvisor/);
      expect(r.stderr, r.stderr).not.toMatch(/^\s+at /m);
    } finally {
      fs.rmSync(bad.dir, { recursive: true, force: true });
    }
  });
});
