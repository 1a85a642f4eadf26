import { describe, expect, it } from "vitest";
import { cpuPercent, memoryInUse } from "./stats.ts";

describe("container figures", () => {
  it("computes CPU % over the time between two samples, 100 % per busy core", () => {
    const prev = { total: 1_000_000_000, system: 100_000_000_000, onlineCpus: 2 };
    const cur = { total: 1_500_000_000, system: 102_000_000_000, onlineCpus: 2 };
    expect(cpuPercent(prev, cur)).toBe(50);
    expect(cpuPercent(undefined, cur)).toBe(0);
    expect(cpuPercent(cur, cur)).toBe(0);
  });

  it("does not count the page cache that can be dropped, as docker stats does", () => {
    expect(memoryInUse({ usage: 100, stats: { total_inactive_file: 30 } as never })).toBe(70);
    expect(memoryInUse({ usage: 100, stats: { inactive_file: 40 } as never })).toBe(60); // cgroup v2
    expect(memoryInUse(undefined)).toBe(0);
  });
});
