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
