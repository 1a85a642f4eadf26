/**
 * Boundary 4 (a server that never answers): the fast lane's per-call deadlines, now one timer per timeouts.callMs (fast-lane.ts
 * Deadlines), still end each call at its own start + callMs whatever came and went before it. The harness is
 * src/gateway/_test-fast-lane.ts, fast-lane.test.ts's (fake timers: no timed assertion).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setup } from "../../src/gateway/_test-fast-lane.ts";

// hrev (issue 15 review): random arrivals, answers and cancels against the shared-timer deadlines (3a824fb): every call not answered ends
// exactly callMs (500) after its own start, none earlier, none twice, nothing armed at the end
describe("deadlines fuzz", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());
  it("each call times out at its own start + callMs", () => {
    let seed = 12345;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    for (let round = 0; round < 40; round++) {
      const t = setup();
      let now = 0;
      const calls = new Map<number, { start: number; up: "a" | "b"; upId: string; done: boolean; cancelled: boolean }>();
      let next = 1;
      const check = () => {
        for (const w of t.written) {
          const c = calls.get(w.id as number)!;
          if ("error" in w && (w.error as { code: number }).code === -32001) {
            expect(c.done || c.cancelled).toBe(false);
            expect(now).toBe(c.start + 500);
            c.done = true;
          }
        }
        t.written.length = 0;
        for (const c of calls.values()) if (!c.done && !c.cancelled) expect(now).toBeLessThan(c.start + 500);
      };
      for (let step = 0; step < 60; step++) {
        const k = rnd(10);
        if (k < 4) {
          const up = rnd(2) ? "a" : "b";
          const id = next++;
          t.call(id, `${up}__echo`);
          calls.set(id, { start: now, up, upId: t.ups.get(up)!.sent.at(-1)!.id as string, done: false, cancelled: false });
        } else if (k < 6) {
          const open = [...calls.entries()].filter(([, c]) => !c.done && !c.cancelled);
          if (open.length) {
            const [id, c] = open[rnd(open.length)]!;
            t.lane.fromServer(t.asUp(t.ups.get(c.up)!), { jsonrpc: "2.0", id: c.upId, result: {} });
            expect(t.written.at(-1)!.id).toBe(id);
            t.written.pop();
            c.done = true;
          }
        } else if (k < 7) {
          const open = [...calls.entries()].filter(([, c]) => !c.done && !c.cancelled);
          if (open.length) {
            const [id, c] = open[rnd(open.length)]!;
            t.lane.fromClient(t.session, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
            c.cancelled = true;
          }
        } else {
          const dt = [0, 1, 7, 99, 250, 499, 500, 501][rnd(8)]!;
          for (let i = 0; i < dt; i++) {
            vi.advanceTimersByTime(1);
            now++;
            check();
          }
        }
      }
      for (let i = 0; i < 600; i++) {
        vi.advanceTimersByTime(1);
        now++;
        check();
      }
      for (const c of calls.values()) expect(c.done || c.cancelled).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    }
  });
});
