import { describe, expect, it } from "vitest";
import { TokenBucket } from "./limits.ts";

describe("TokenBucket", () => {
  it("allows the burst, then the rate, and counts what it refused", () => {
    let now = 0;
    const bucket = new TokenBucket(10, 5, () => now);
    const taken = Array.from({ length: 8 }, () => bucket.take());
    expect(taken.filter(Boolean)).toHaveLength(5);
    expect(bucket.drained()).toBe(3);
    expect(bucket.drained()).toBe(0);
    now += 200; // two tokens back
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
    now += 10_000; // never above the burst
    expect(Array.from({ length: 7 }, () => bucket.take()).filter(Boolean)).toHaveLength(5);
  });
});
