import { describe, expect, it } from "vitest";
import { MAX_PARKED, RoundTrips } from "./round-trips.ts";

describe("RoundTrips.park", () => {
  it("holds at most MAX_PARKED round trips: the oldest is aborted and its requestState no longer works", () => {
    const trips = new RoundTrips();
    const aborted: number[] = [];
    const tokens = Array.from({ length: MAX_PARKED + 2 }, (_, i) => trips.park(undefined, { abort: () => aborted.push(i) }));
    expect(aborted).toEqual([0, 1]);
    expect(trips.peek(tokens[0])).toBeUndefined();
    expect(trips.peek(tokens[2])).toBeDefined();
    expect(() => trips.unpark(tokens[1], (v): v is unknown => true)).toThrow(/Invalid or expired requestState/);
    expect(trips.unpark(tokens[MAX_PARKED + 1], (v): v is unknown => true)).toBeDefined();
  });
});
