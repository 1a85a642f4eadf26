import { describe, expect, it } from "vitest";
import { QueueFull, RunSlots } from "./slots.ts";

describe("RunSlots", () => {
  it("lets maxConcurrent runs in at once, queues the next ones in order, refuses one more than the queue holds", async () => {
    const slots = new RunSlots(2, 1, "servers.code.pool");
    const a = await slots.acquire();
    const b = await slots.acquire();
    let third = false;
    const c = slots.acquire().then((r) => ((third = true), r));
    await expect(slots.acquire()).rejects.toThrow(QueueFull);
    await expect(slots.acquire()).rejects.toThrow(
      "too many runs at once: 2 running (servers.code.pool.maxConcurrent: 2) and 1 waiting (servers.code.pool.maxQueued: 1); try again when one has finished, or raise servers.code.pool.maxQueued",
    );
    await Promise.resolve();
    expect(third).toBe(false);
    a();
    a(); // twice is once
    const release = await c;
    expect(third).toBe(true);
    expect(slots.running).toBe(2);
    b();
    release();
    expect(slots.running).toBe(0);
  });

  it("drops a cancelled waiter from the queue and refuses waiters once closed", async () => {
    const slots = new RunSlots(1, 2);
    await slots.acquire();
    const abort = new AbortController();
    const cancelled = slots.acquire(abort.signal);
    const waiting = slots.acquire();
    abort.abort();
    await expect(cancelled).rejects.toThrow(/cancelled while waiting/);
    expect(slots.queued).toBe(1);
    slots.close();
    await expect(waiting).rejects.toThrow(/shutting down/);
    await expect(slots.acquire()).rejects.toThrow(/shutting down/);
  });
});
