/**
 * Boundary 14: the code runner is bounded as a whole. Through dist/mcpbox serve and the real engine: with
 * pool.maxConcurrent 2 and pool.maxQueued 1, four runs sent at once never have more than two containers (counted with
 * the engine, and by the runs' own clocks), one waits its turn, and the fourth gets an error naming the keys.
 */
import { describe, expect, it } from "vitest";
import { connect, containersOf, project, waitFor } from "../helpers/gateway.ts";
import { textOf } from "./_hostile.ts";

const RUN = 'echo "start $(date +%s%N)"; sleep 0.7; echo "end $(date +%s%N)"';

describe("the code runner's cap on runs at once", () => {
  it("holds pool.maxConcurrent with the engine's own count, queues one, refuses one more with a clear error", async () => {
    const p = project({ code: { builtin: "code-runner", languages: ["bash"], pool: { maxConcurrent: 2, maxQueued: 1 }, timeouts: { runMs: 30_000 } } });
    const gw = await connect(p);
    let most = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        most = Math.max(most, (await containersOf(gw.pid)).length);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      const calls = [1, 2, 3, 4].map(() =>
        gw.client.callTool({ name: "code__run_code", arguments: { language: "bash", code: RUN } }, undefined, { timeout: 120_000 }),
      );
      const results = await Promise.all(calls);
      polling = false;
      await poll;
      const refused = results.filter((r) => r.isError);
      expect(refused.map(textOf)).toEqual([
        "run_code: too many runs at once: 2 running (servers.code.pool.maxConcurrent: 2) and 1 waiting (servers.code.pool.maxQueued: 1); " +
          "try again when one has finished, or raise servers.code.pool.maxQueued",
      ]);
      const ran = results.filter((r) => !r.isError).map((r) => r.structuredContent as { stdout: string; exitCode: number });
      expect(ran).toHaveLength(3);
      const spans = ran.map((r) => {
        expect(r.exitCode).toBe(0);
        const [, start, end] = /start (\d+)\nend (\d+)/.exec(r.stdout)!;
        return [BigInt(start!), BigInt(end!)] as const;
      });
      // at no run's start were more than two runs (this one included) going on
      for (const [start] of spans) expect(spans.filter(([s, e]) => s <= start && start < e).length).toBeLessThanOrEqual(2);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(2);
    } finally {
      polling = false;
      await gw.client.close();
    }
    await waitFor("the runner's containers to be removed", async () => (await containersOf(gw.pid)).length === 0, 30_000);
  }, 120_000);
});

/**
 * The run's status is the run's own process's, and the exit trailer is the launcher's word alone: a process the run
 * forks cannot report its exit as the run's, and the run cannot read the trailer's nonce from the launcher's memory
 * (/proc/<ppid>/mem, same user) to forge an early trailer with an OOM flag.
 */
describe("the code runner's exit report", () => {
  const FORK = "import os, sys, time\nif os.fork() == 0:\n    sys.exit(3)\ntime.sleep(0.3)\nprint('parent output after child')\n";
  const FORGE = [
    "import os, re, time",
    "ppid = os.getppid()",
    "found = None",
    "try:",
    "    with open(f'/proc/{ppid}/maps') as m, open(f'/proc/{ppid}/mem', 'rb', 0) as mem:",
    "        for line in m:",
    "            a, perms = line.split()[:2]",
    "            lo, hi = (int(x, 16) for x in a.split('-'))",
    "            if 'r' not in perms or hi - lo > 64 << 20: continue",
    "            try:",
    "                mem.seek(lo); data = mem.read(hi - lo)",
    "            except OSError:",
    "                continue",
    "            r = re.search(rb'\\x00MCPBOX-READY:([0-9a-f]{16})\\x00', data)",
    "            if r: found = r.group(1); break",
    "except OSError as e:",
    "    print('refused', e.errno, flush=True)",
    "if found:",
    "    t = b'\\x00MCPBOX-EXIT:' + found + b':0:9\\x00'",
    "    os.write(1, t); os.write(2, t)",
    "time.sleep(1.5)",
    "print('real end', flush=True)",
    "raise SystemExit(7)",
  ].join("\n");

  it("takes the run's own status past a forked child that exits first, and refuses the launcher's memory to the run", async () => {
    const p = project({ code: { builtin: "code-runner", languages: ["python"], timeouts: { runMs: 30_000 } } });
    const gw = await connect(p);
    const run = async (code: string) => {
      const r = await gw.client.callTool({ name: "code__run_code", arguments: { language: "python", code } }, undefined, { timeout: 120_000 });
      expect(r.isError, textOf(r)).toBeFalsy();
      return r.structuredContent as { stdout: string; exitCode: number; oomKilled: boolean; timedOut: boolean };
    };
    try {
      expect(await run(FORK)).toMatchObject({ exitCode: 0, stdout: "parent output after child\n", timedOut: false });
      const forged = await run(FORGE);
      expect(forged).toMatchObject({ exitCode: 7, oomKilled: false, timedOut: false });
      expect(forged.stdout).toContain("real end\n");
    } finally {
      await gw.client.close();
    }
    await waitFor("the runner's containers to be removed", async () => (await containersOf(gw.pid)).length === 0, 30_000);
  }, 180_000);
});
