/**
 * The built-in code runner against the real engine: run_code through an SDK Client over InMemoryTransport, each run
 * in a fresh hardened container. Every runner gets its own session label, so leftovers are counted by that label.
 */
import { createHash, randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config/resolve.ts";
import { engine } from "../src/docker/engine.ts";
import { containersWithLabels } from "../src/docker/run-once.ts";
import { ensureRunnerImage } from "../src/runner/image.ts";
import { createCodeRunnerServer } from "../src/runner/server.ts";
import { auditLines, connect, containersOf, project, waitFor } from "./helpers/gateway.ts";

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
  durationMs: number;
  timedOut: boolean;
  oomKilled: boolean;
  stdoutTruncated?: boolean;
  stdoutBytes?: number;
}

interface Runner {
  client: Client;
  server: Server;
  session: string;
  audit: Record<string, unknown>[];
  run(language: string, code: string, extra?: Record<string, unknown>, signal?: AbortSignal): Promise<Run & { text: string }>;
  containers(): Promise<string[]>;
  close(): Promise<void>;
}

const docker = engine();
let image: string;
const open: Runner[] = [];

beforeAll(async () => {
  image = await ensureRunnerImage(docker, resolveConfig({ servers: {} }, "/x/sandbox.config.ts").build.baseImages);
});

afterAll(async () => {
  await Promise.allSettled(open.map((r) => r.close()));
});

async function startRunner(settings: Record<string, unknown> = {}): Promise<Runner> {
  const config = resolveConfig(
    { servers: { code: { builtin: "code-runner", ...settings } } } as never,
    "/tmp/code-runner-test/sandbox.config.ts",
  );
  const session = `crtest-${randomBytes(4).toString("hex")}`;
  const audit: Record<string, unknown>[] = [];
  const server = createCodeRunnerServer(config.servers[0]!, {
    docker,
    session,
    configHash: config.hash,
    ownerPid: process.pid,
    image,
    audit: (e) => audit.push(e),
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "code-runner-test", version: "1" });
  await Promise.all([server.connect(b), client.connect(a)]);
  const runner: Runner = {
    client,
    server,
    session,
    audit,
    async run(language, code, extra = {}, signal) {
      const r = await client.callTool({ name: "run_code", arguments: { language, code, ...extra } }, undefined, {
        timeout: 170_000,
        ...(signal ? { signal } : {}),
      });
      expect(r.isError, JSON.stringify(r.content)).toBe(false);
      const text = (r.content as { type: string; text: string }[])[0]!.text;
      return { ...(r.structuredContent as unknown as Run), text };
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

/** Containers of a session once their count reaches `want` (removal happens just after the answer), or after 20 s. */
async function settledContainers(r: Runner, want = 0): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const ids = await r.containers();
    if (ids.length === want) return ids;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return r.containers();
}

describe("run_code", () => {
  let r: Runner;
  beforeAll(async () => {
    r = await startRunner({ timeouts: { runMs: 20_000 }, limits: { memory: "128m", pids: 64 } });
  });

  it("offers run_code with the configured languages", async () => {
    const { tools } = await r.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["run_code"]);
    expect((tools[0]!.inputSchema.properties as { language: { enum: string[] } }).language.enum).toEqual(["python", "node", "bash"]);
  });

  it("runs python, node and bash, each printing what it computes", async () => {
    const [py, js, sh] = await Promise.all([
      r.run("python", "import math\nprint(sum(i * i for i in range(10)), math.factorial(5))"),
      r.run("node", "const xs = [1, 2, 3].map((x) => x * 7); console.log(xs.join(','), 2 ** 10);"),
      r.run("bash", 'n=0; for i in $(seq 1 10); do n=$((n + i)); done; echo "sum=$n"; echo oops >&2; exit 4'),
    ]);
    expect(py).toMatchObject({ stdout: "285 120\n", exitCode: 0, timedOut: false, oomKilled: false });
    expect(js).toMatchObject({ stdout: "7,14,21 1024\n", exitCode: 0 });
    expect(sh).toMatchObject({ stdout: "sum=55\n", stderr: "oops\n", exitCode: 4 });
    expect(sh.text).toContain("exit code 4");
  });

  it("passes stdin and places files in /work, as user 1000, without the code in any argv", async () => {
    const res = await r.run(
      "python",
      [
        "import os, sys",
        "print(sys.stdin.read().upper())",
        "print(open('data/in.txt').read())",
        "print(os.getcwd(), os.getuid())",
        "print(any('SECRET_MARK' in open(f'/proc/{p}/cmdline').read() for p in os.listdir('/proc') if p.isdigit()))",
      ].join("\n"),
      { stdin: "hello", files: { "data/in.txt": "from a file" } },
    );
    expect(res.stdout).toBe("HELLO\nfrom a file\n/work 1000\nFalse\n");
  });

  it("gives a run no network", async () => {
    const res = await r.run(
      "python",
      "import socket\ntry:\n  socket.create_connection(('1.1.1.1', 80), timeout=3)\n  print('connected')\nexcept OSError as e:\n  print('refused:', e)",
    );
    expect(res.stdout).toMatch(/^refused:/);
    expect(res.stdout).not.toContain("connected");
  });

  it("keeps the root file system read-only and /work noexec", async () => {
    const res = await r.run("bash", "touch /home/python/x 2>&1; echo 'echo ran' > /work/s.sh; chmod +x /work/s.sh; /work/s.sh 2>&1; true");
    expect(res.stdout).toContain("Read-only file system");
    expect(res.stdout).toContain("Permission denied");
    expect(res.stdout).not.toContain("ran\n");
  });

  it("does not let a file written by one run be seen by the next", async () => {
    const first = await r.run("bash", "echo secret > /work/left.txt; echo tmp > /tmp/left.txt; ls /work /tmp");
    expect(first.stdout).toContain("left.txt");
    const second = await r.run("bash", "ls -A /work /tmp; cat /work/left.txt /tmp/left.txt 2>&1; true");
    expect(second.stdout).not.toContain("secret");
    expect(second.stdout).toContain("No such file");
  });

  it("reports a memory bomb as out of memory", async () => {
    const res = await r.run("python", "chunks = []\nwhile True:\n    chunks.append('x' * 50_000_000)");
    expect(res.oomKilled).toBe(true);
    expect(res.exitCode).not.toBe(0);
    expect(res.text).toContain("out of memory");
  });

  it("contains a fork storm with the pids limit", async () => {
    const res = await r.run(
      "python",
      "import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(60)\n            os._exit(0)\n        n += 1\nexcept OSError as e:\n    print('stopped after', n, e.errno)",
    );
    const [, n] = /^stopped after (\d+) 11$/m.exec(res.stdout) ?? [];
    expect(Number(n)).toBeGreaterThan(0);
    expect(Number(n)).toBeLessThan(64);
  });

  it("writes the exact code of every run to the audit log", async () => {
    const code = "print('audited')  # mark-" + randomBytes(4).toString("hex");
    await r.run("python", code);
    expect(r.audit).toContainEqual(expect.objectContaining({ tool: "run_code", language: "python", code, outcome: "ok", exitCode: 0 }));
  });

  it("answers an invalid request with an error, not a run", async () => {
    const res = await r.client.callTool({ name: "run_code", arguments: { language: "cobol", code: "x" } });
    expect(res.isError).toBe(true);
  });

  it("leaves no container behind", async () => {
    expect(await settledContainers(r)).toEqual([]);
  });
});

describe("run_code limits", () => {
  it("kills an endless loop at its timeout and says so", async () => {
    const r = await startRunner({ timeouts: { runMs: 1500 } });
    const res = await r.run("node", "for (;;) {}");
    expect(res).toMatchObject({ timedOut: true, oomKilled: false });
    expect(res.text).toContain("time limit");
    expect(r.audit[0]).toMatchObject({ outcome: "timeout", timedOut: true, code: "for (;;) {}" });
    expect(await settledContainers(r)).toEqual([]);
  });

  it("returns from a bash fork bomb, killed at its timeout", async () => {
    const r = await startRunner({ timeouts: { runMs: 6000 }, limits: { pids: 64 } });
    const res = await r.run("bash", ":(){ :|:& };:; sleep 60");
    expect(res.timedOut).toBe(true);
    expect(res.stderr).toMatch(/fork|Resource temporarily unavailable/);
    expect((await r.run("bash", "echo still here")).stdout).toBe("still here\n");
    expect(await settledContainers(r)).toEqual([]);
  });

  it("caps 50 MB of output and stays healthy", async () => {
    const r = await startRunner({ maxOutputBytes: 100_000, timeouts: { runMs: 60_000 } });
    const res = await r.run("python", "import sys\nline = 'y' * 1023 + '\\n'\nfor _ in range(50 * 1024):\n    sys.stdout.write(line)\nprint('err', file=sys.stderr)");
    expect(res.stdout.length).toBe(100_000);
    expect(res).toMatchObject({ stdoutTruncated: true, stdoutBytes: 50 * 1024 * 1024, exitCode: 0, stderr: "err\n" });
    expect(res.text).toContain("stdout cut at 100000 bytes");
    expect((await r.run("python", "print('ok')")).stdout).toBe("ok\n");
  });

  it("answers 20 concurrent runs and leaves no containers behind", async () => {
    const r = await startRunner({ timeouts: { runMs: 120_000 } });
    const langs = ["python", "node", "bash"] as const;
    const code = { python: "print(6 * %d)", node: "console.log(6 * %d)", bash: "echo $((6 * %d))" };
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => r.run(langs[i % 3]!, code[langs[i % 3]!].replace("%d", String(i)))),
    );
    runs.forEach((x, i) => expect(x.stdout, JSON.stringify(x)).toBe(`${6 * i}\n`));
    await r.close();
    expect(await r.containers()).toEqual([]);
  });

  it("removes the container of a cancelled run", async () => {
    const r = await startRunner({ timeouts: { runMs: 120_000 } });
    const abort = new AbortController();
    const pending = r.run("python", "import time\nprint('started', flush=True)\ntime.sleep(100)", {}, abort.signal);
    for (let i = 0; i < 150 && (await r.containers()).length === 0; i++) await new Promise((res) => setTimeout(res, 100));
    expect((await r.containers()).length).toBe(1);
    abort.abort();
    await expect(pending).rejects.toThrow();
    expect(await settledContainers(r)).toEqual([]);
    expect(r.audit).toContainEqual(expect.objectContaining({ outcome: "cancelled" }));
  });
});

describe("run_code with a pool", () => {
  it("keeps warm containers ready, uses each once, and removes them all on close", async () => {
    const r = await startRunner({ pool: 1, languages: ["python", "bash"], timeouts: { runMs: 60_000 } });
    expect((await settledContainers(r, 2)).length).toBe(2);
    const first = await r.run("bash", "echo one > /work/mark; hostname");
    const second = await r.run("bash", "cat /work/mark 2>&1; hostname");
    expect(second.stdout).toContain("No such file");
    expect(second.stdout.split("\n")[1]).not.toBe(first.stdout.trim());
    expect((await r.run("python", "print(2 + 2)")).stdout).toBe("4\n");
    expect((await settledContainers(r, 2)).length).toBe(2);
    await r.close();
    expect(await r.containers()).toEqual([]);
  });
});

describe("python runs as `python3 .run_code.py` would (the pre-started interpreter, issue 16)", () => {
  it("reports the status a run ends with as soon as it is known, past anything the run leaves behind", async () => {
    const r = await startRunner({ pool: 1, languages: ["python"], timeouts: { runMs: 15_000 } });
    // a child that outlives the run and holds every file it inherited: the answer comes at the run's end, not the child's
    const fork = "import os, sys, time\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\n";
    expect(await r.run("python", fork + "print('parent')\nsys.exit(3)")).toMatchObject({ exitCode: 3, stdout: "parent\n", timedOut: false });
    // the same through Python's own exit (a live generator keeps the stub off its fast path)
    const slow = fork + "g = (i for i in range(2))\nprint('slow')\nsys.exit(4)";
    expect(await r.run("python", slow)).toMatchObject({ exitCode: 4, stdout: "slow\n", timedOut: false });
    expect((await r.run("python", "import sys; sys.exit(256)")).exitCode).toBe(0); // as the shell sees it: status & 0xff
    expect((await r.run("python", "import sys; sys.exit(-1)")).exitCode).toBe(255);
    expect(await r.run("python", "import os; print('raw', flush=True); os._exit(7)")).toMatchObject({ exitCode: 7, stdout: "raw\n" });
    await r.close();
    expect(await r.containers()).toEqual([]);
  });

  it("keeps __name__, argv, __file__, sys.path[0], cwd, stdin, files beside the code, exit codes and tracebacks", async () => {
    for (const pool of [1, 0]) {
      const r = await startRunner({ pool, languages: ["python", "bash"], timeouts: { runMs: 60_000 } });
      const code = "import os, sys, helper\nprint(__name__, sys.argv, __file__, sys.path[0], os.getcwd(), helper.X)\nprint(repr(sys.stdin.read()))\nsys.stdout.write('end')";
      const ok = await r.run("python", code, { stdin: "a\nb\n", files: { "helper.py": "X = 42\n" } });
      expect(ok, `pool ${pool}`).toMatchObject({ exitCode: 0, stderr: "", stdout: "__main__ ['.run_code.py'] /work/.run_code.py /work /work 42\n'a\\nb\\n'\nend" });
      const raised = await r.run("python", "def f():\n    raise ValueError('boom')\nf()");
      expect(raised.exitCode).toBe(1);
      expect(raised.stderr).toBe(
        'Traceback (most recent call last):\n  File "/work/.run_code.py", line 3, in <module>\n    f()\n  File "/work/.run_code.py", line 2, in f\n    raise ValueError(\'boom\')\nValueError: boom\n',
      );
      const syntax = await r.run("python", "x = (");
      expect(syntax.exitCode).toBe(1);
      expect(syntax.stderr).toMatch(/^ {2}File "\/work\/\.run_code\.py", line 1\n[^]*SyntaxError: /);
      expect((await r.run("python", "import sys; sys.exit(3)")).exitCode).toBe(3);
      expect(await r.run("python", "import sys; sys.exit('bye')")).toMatchObject({ exitCode: 1, stderr: "bye\n" });
      expect((await r.run("python", "raise KeyboardInterrupt")).exitCode).toBe(130); // killed by its own SIGINT
      const pipe = await r.run("bash", 'seq 1 100000 | head -1; echo "${PIPESTATUS[@]}"'); // SIGPIPE as in a shell, not ignored
      expect(pipe).toMatchObject({ stdout: "1\n141 0\n", stderr: "", exitCode: 0 });
      const env = await r.run("python", "import os; print([k for k in os.environ if 'MCPBOX' in k], type(__loader__).__name__)");
      expect(env.stdout).toBe("[] SourceFileLoader\n");
      await r.close();
      expect(await r.containers()).toEqual([]);
    }
  });

  it("feeds a stdin larger than a pipe holds (the run's stdin is a pipe): read in full, or left unread without a hang", async () => {
    const r = await startRunner({ pool: 1, languages: ["python", "node", "bash"], timeouts: { runMs: 30_000 } });
    try {
      const stdin = "0123456789abcde\n".repeat(20_000); // 320 KB, five times what a pipe holds
      const big = "x = 1\n".repeat(20_000); // 120 KB of code: the pre-started interpreter reads it off its pipe too
      const read = await r.run("python", big + "import sys, hashlib\nd = sys.stdin.buffer.read()\nprint(len(d), hashlib.sha256(d).hexdigest()[:12], x)", { stdin });
      const sha = createHash("sha256").update(stdin).digest("hex").slice(0, 12);
      expect(read).toMatchObject({ exitCode: 0, stderr: "", stdout: `320000 ${sha} 1\n` });
      expect(await r.run("python", "print(input())", { stdin })).toMatchObject({ exitCode: 0, stdout: "0123456789abcde\n" });
      expect(await r.run("python", "import os; print(os.isatty(0), os.read(0, 4))", { stdin })).toMatchObject({ exitCode: 0, stdout: "False b'0123'\n" });
      expect(await r.run("bash", "wc -c", { stdin })).toMatchObject({ exitCode: 0, stdout: "320000\n" });
      expect(await r.run("bash", "echo unread", { stdin })).toMatchObject({ exitCode: 0, stdout: "unread\n", timedOut: false });
      const js = "let n = 0; process.stdin.on('data', (d) => (n += d.length)).on('end', () => console.log(n));";
      expect(await r.run("node", js, { stdin })).toMatchObject({ exitCode: 0, stdout: "320000\n" });
      expect(await r.run("python", "import sys; sys.stdin.close(); print('closed')", { stdin })).toMatchObject({ exitCode: 0, stdout: "closed\n" });
    } finally {
      await r.close();
    }
    expect(await r.containers()).toEqual([]);
  });
});

describe("python's exit in the pre-started interpreter (it skips freeing the interpreter, issue 16)", () => {
  it("still runs what a program can see at exit: threads joined, atexit, __del__ of globals, unclosed files (also in helper modules and cycles), C stdio", async () => {
    const r = await startRunner({ pool: 1, languages: ["python"], timeouts: { runMs: 60_000 } });
    try {
      const code = [
        "import atexit, sys, threading, time",
        "class A:",
        "    def __del__(self):",
        "        print('del of a global')",
        "a = A()",
        "f = open(1, 'w', closefd=False)",
        "f.write('an unclosed file\\n')",
        "atexit.register(lambda: print('atexit'))",
        "threading.Thread(target=lambda: (time.sleep(0.3), print('thread joined'))).start()",
        "print('main done')",
        "sys.exit(4)",
      ].join("\n");
      expect(await r.run("python", code)).toMatchObject({ exitCode: 4, stderr: "", stdout: "main done\nthread joined\natexit\ndel of a global\nan unclosed file\n" });
      // a writer python3 flushes only when it frees it: held by a helper module from the files, or in a reference cycle
      const helper = { "helper.py": "out = open(1, 'w', closefd=False)\nout.write('from a helper module\\n')\n" };
      expect(await r.run("python", "import helper\nprint('main')", { files: helper })).toMatchObject({ exitCode: 0, stderr: "", stdout: "main\nfrom a helper module\n" });
      const cycle = "class C:\n    pass\nc = C()\nc.me = c\nc.out = open(1, 'w', closefd=False)\nc.out.write('in a cycle\\n')\nprint('main')";
      expect(await r.run("python", cycle)).toMatchObject({ exitCode: 0, stderr: "", stdout: "main\nin a cycle\n" });
      const stashed = "import sys\nsys.mcpbox_out = open(1, 'w', closefd=False)\nsys.mcpbox_out.write('in a module of the stdlib\\n')";
      expect(await r.run("python", stashed)).toMatchObject({ exitCode: 0, stderr: "", stdout: "in a module of the stdlib\n" });
      // C code's stdout buffer (a pipe: fully buffered) is flushed by exit(): with ctypes loaded Python's own exit runs
      expect(await r.run("python", "import ctypes\nctypes.CDLL(None).printf(b'from C\\n')")).toMatchObject({ exitCode: 0, stdout: "from C\n" });
      expect((await r.run("python", "import sys\nsys.exit(2**40)")).exitCode).toBe(0); // as python3 says (its low 32 bits)
      expect((await r.run("python", "import sys\nsys.exit(-1)")).exitCode).toBe(255);
      expect(await r.run("python", "import sys\nsys.stdout.close()\nprint('x', file=sys.stderr)")).toMatchObject({ exitCode: 0, stderr: "x\n" });
    } finally {
      await r.close();
    }
    expect(await r.containers()).toEqual([]);
  });
});

describe("mcpbox serve with a code-runner server", () => {
  it("offers run_code through the gateway, audits the exact code and removes every container", async () => {
    const p = project({ code: { builtin: "code-runner", pool: 1, languages: ["python", "node"], timeouts: { runMs: 60_000 } } });
    const gw = await connect(p);
    try {
      const { tools } = await gw.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["code__run_code"]);
      const code = "import sys\nprint(sum(range(101)), sys.version_info[0])";
      const r = await gw.client.callTool({ name: "code__run_code", arguments: { language: "python", code } }, undefined, { timeout: 170_000 });
      expect(r.structuredContent).toMatchObject({ stdout: "5050 3\n", exitCode: 0, timedOut: false, oomKilled: false });
      const js = await gw.client.callTool({ name: "code__run_code", arguments: { language: "node", code: "console.log([1,2,3].length)" } }, undefined, { timeout: 170_000 });
      expect(js.structuredContent).toMatchObject({ stdout: "3\n", exitCode: 0 });
      const codeLines = () => auditLines(p).filter((l) => l.server === "code");
      const lines = await waitFor("both calls' audit lines", () => (codeLines().length >= 2 ? codeLines() : undefined));
      expect(lines).toContainEqual(expect.objectContaining({ method: "tools/call", tool: "run_code", server: "code", arguments: { language: "python", code, files: [] }, outcome: "ok", exitCode: 0 }));
      expect(lines).toHaveLength(2); // one line per call, with the exact code
    } finally {
      await gw.client.close();
    }
    await waitFor("the gateway's containers to be removed", async () => (await containersOf(gw.pid)).length === 0, 60_000);
  });
});
