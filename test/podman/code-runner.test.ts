/**
 * The built-in code runner against Podman's Docker API: run_code through an SDK Client over InMemoryTransport, each
 * run in a fresh hardened container (as test/code-runner.test.ts does on Docker), and through `mcpbox serve`.
 */
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.ts";
import { engine } from "../../src/docker/engine.ts";
import { containersWithLabels } from "../../src/docker/run-once.ts";
import { ensureRunnerImage } from "../../src/runner/image.ts";
import { createCodeRunnerServer } from "../../src/runner/server.ts";
import { connect, containersOf, project, waitFor } from "../helpers/gateway.ts";
import { expectPodman } from "./_podman.ts";

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
  timedOut: boolean;
  oomKilled: boolean;
  text: string;
}

interface Runner {
  run(language: string, code: string, extra?: Record<string, unknown>): Promise<Run>;
  containers(): Promise<string[]>;
  audit: Record<string, unknown>[];
  close(): Promise<void>;
}

const docker = engine();
let image: string;
const open: Runner[] = [];

beforeAll(async () => {
  await expectPodman();
  image = await ensureRunnerImage(docker, resolveConfig({ servers: {} }, "/x/sandbox.config.ts").build.baseImages);
}, 600_000);

afterAll(async () => {
  await Promise.allSettled(open.map((r) => r.close()));
});

async function startRunner(settings: Record<string, unknown> = {}): Promise<Runner> {
  const config = resolveConfig({ servers: { code: { builtin: "code-runner", ...settings } } } as never, "/tmp/code-runner-podman/sandbox.config.ts");
  const session = `crpodman-${randomBytes(4).toString("hex")}`;
  const audit: Record<string, unknown>[] = [];
  const server: Server = createCodeRunnerServer(config.servers[0]!, { docker, session, configHash: config.hash, ownerPid: process.pid, image, audit: (e) => audit.push(e) });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "code-runner-podman", version: "1" });
  await Promise.all([server.connect(b), client.connect(a)]);
  const runner: Runner = {
    audit,
    async run(language, code, extra = {}) {
      const r = await client.callTool({ name: "run_code", arguments: { language, code, ...extra } }, undefined, { timeout: 170_000 });
      expect(r.isError, JSON.stringify(r.content)).toBe(false);
      return { ...(r.structuredContent as unknown as Run), text: (r.content as { text: string }[])[0]!.text };
    },
    containers: () => containersWithLabels(docker, { "mcpbox.session": session }),
    async close() {
      await client.close();
      await server.close();
    },
  };
  open.push(runner);
  return runner;
}

/** The session's containers once none is left (removal happens just after the answer), or after 20 s. */
async function settled(r: Runner): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const ids = await r.containers();
    if (ids.length === 0) return ids;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return r.containers();
}

describe("run_code on Podman", () => {
  let r: Runner;
  beforeAll(async () => {
    r = await startRunner({ timeouts: { runMs: 20_000 }, limits: { memory: "128m", pids: 64 } });
  });

  it("runs python, node and bash, each printing what it computes", async () => {
    const py = await r.run("python", "import math\nprint(sum(i * i for i in range(10)), math.factorial(5))");
    const js = await r.run("node", "console.log([1, 2, 3].map((x) => x * 7).join(','))");
    const sh = await r.run("bash", 'echo "sum=$((1 + 2))"; echo oops >&2; exit 4');
    expect(py).toMatchObject({ stdout: "285 120\n", exitCode: 0, timedOut: false, oomKilled: false });
    expect(js).toMatchObject({ stdout: "7,14,21\n", exitCode: 0 });
    expect(sh).toMatchObject({ stdout: "sum=3\n", stderr: "oops\n", exitCode: 4 });
  });

  it("runs as user 1000 in /work, its own noexec tmpfs, with stdin and files, on a read-only root", async () => {
    // /work is a tmpfs owned by the run's user: Podman gets that as `U` (it refuses uid=/gid=, src/docker/engine-kind.ts)
    const res = await r.run(
      "bash",
      "cat; echo; cat data/in.txt; echo; id -u; stat -c '%u' /work; grep ' /work ' /proc/mounts | cut -d' ' -f4; touch /x 2>&1; true",
      { stdin: "from stdin", files: { "data/in.txt": "from a file" } },
    );
    const lines = res.stdout.split("\n");
    expect(lines.slice(0, 4)).toEqual(["from stdin", "from a file", "1000", "1000"]);
    expect(lines[4]!.split(",")).toEqual(expect.arrayContaining(["rw", "nosuid", "nodev", "noexec", "mode=700", "uid=1000", "gid=1000"]));
    expect(res.stdout).toContain("Read-only file system");
  });

  it("gives a run no network", async () => {
    const res = await r.run(
      "python",
      "import socket\ntry:\n  socket.create_connection(('127.0.0.2', 9), timeout=3)\n  print('connected')\nexcept OSError as e:\n  print('refused:', e)\nprint(sorted(n for _, n in socket.if_nameindex()))",
    );
    expect(res.stdout).toMatch(/^refused:/);
    expect(res.stdout).toContain("['lo']");
  });

  it("reports a memory bomb as out of memory", async () => {
    const res = await r.run("python", "chunks = []\nwhile True:\n    chunks.append('x' * 50_000_000)");
    expect(res.oomKilled).toBe(true);
    expect(res.exitCode).not.toBe(0);
    expect(res.text).toContain("out of memory");
  });

  it("leaves no container behind", async () => {
    expect(await settled(r)).toEqual([]);
  });

  it("kills an endless loop at its timeout and says so", async () => {
    const t = await startRunner({ timeouts: { runMs: 1500 } });
    const res = await t.run("node", "for (;;) {}");
    expect(res).toMatchObject({ timedOut: true, oomKilled: false });
    expect(res.text).toContain("time limit");
    expect(t.audit[0]).toMatchObject({ outcome: "timeout", timedOut: true, code: "for (;;) {}" });
    expect(await settled(t)).toEqual([]);
  });
});

describe("mcpbox serve with a code-runner server on Podman", () => {
  it("offers run_code through the gateway and removes every container", async () => {
    const p = project({ code: { builtin: "code-runner", pool: 1, languages: ["python"], timeouts: { runMs: 60_000 } } });
    const gw = await connect(p);
    try {
      const { tools } = await gw.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["code__run_code"]);
      const r = await gw.client.callTool({ name: "code__run_code", arguments: { language: "python", code: "print(sum(range(101)))" } }, undefined, { timeout: 170_000 });
      expect(r.structuredContent).toMatchObject({ stdout: "5050\n", exitCode: 0, timedOut: false });
    } finally {
      await gw.client.close();
    }
    await waitFor("the gateway's containers to be removed", async () => (await containersOf(gw.pid)).length === 0, 60_000);
  });
});
