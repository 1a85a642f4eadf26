import { describe, expect, it } from "vitest";
import { Latency, LATENCY_WINDOW, percentile } from "./latency.ts";

describe("Latency", () => {
  it("gives nearest-rank percentiles", () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([5], 95)).toBe(5);
    expect(percentile([], 50)).toBeUndefined();
  });

  it("matches a full sort over a sliding window", () => {
    const l = new Latency();
    const all: number[] = [];
    for (let i = 0; i < LATENCY_WINDOW * 3; i++) {
      const d = Math.round(Math.random() * 1000) / 10;
      l.add(d);
      all.push(d);
      if (i % 97 === 0 || i === LATENCY_WINDOW * 3 - 1) {
        const window = all.slice(-LATENCY_WINDOW).sort((a, b) => a - b);
        expect([l.p50, l.p95]).toEqual([percentile(window, 50), percentile(window, 95)]);
      }
    }
  });
});
