import { describe, expect, it } from "vitest";
import { aggregateCacheHint } from "./cache-hints.ts";

describe("aggregateCacheHint", () => {
  it("keeps the shortest lifetime and is private if any part is", () => {
    expect(aggregateCacheHint([{ ttlMs: 5000, cacheScope: "public" }, { ttlMs: 2000, cacheScope: "public" }])).toEqual({ ttlMs: 2000, cacheScope: "public" });
    expect(aggregateCacheHint([{ ttlMs: 5000, cacheScope: "public" }, { ttlMs: 9000, cacheScope: "private" }])).toEqual({ ttlMs: 5000, cacheScope: "private" });
  });

  it("takes a part that says nothing (a 2025-11-25 server) or nonsense as 0 ms, private", () => {
    expect(aggregateCacheHint([{ ttlMs: 5000, cacheScope: "public" }, undefined])).toEqual({ ttlMs: 0, cacheScope: "private" });
    expect(aggregateCacheHint([{ ttlMs: -1, cacheScope: "public" }])).toEqual({ ttlMs: 0, cacheScope: "public" });
    expect(aggregateCacheHint([])).toEqual({ ttlMs: 0, cacheScope: "private" });
  });
});
