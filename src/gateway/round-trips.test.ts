import { describe, expect, it } from "vitest";
import { MAX_PARKED, MAX_PARKED_PER_CLIENT, RoundTrips } from "./round-trips.ts";
import type { ClientSession } from "./session.ts";

/** A client session as park() sees it: a long-lived one is itself; a per-request one is its clientInfo. */
const perRequest = (name: string) => ({ perRequest: true, clientInfo: { name, version: "1" } }) as unknown as ClientSession;
const longLived = () => ({ perRequest: false }) as unknown as ClientSession;

describe("RoundTrips.park", () => {
  it("holds at most MAX_PARKED round trips: the oldest is aborted and its requestState no longer works", () => {
    const trips = new RoundTrips();
    const aborted: number[] = [];
    // clients of their own (no per-client bound reached): the ceiling over all of them
    const tokens = Array.from({ length: MAX_PARKED + 2 }, (_, i) => trips.park(longLived(), { abort: () => aborted.push(i) }));
    expect(aborted).toEqual([0, 1]);
    expect(trips.peek(tokens[0])).toBeUndefined();
    expect(trips.peek(tokens[2])).toBeDefined();
    expect(() => trips.unpark(tokens[1], (v): v is unknown => true)).toThrow(/Invalid or expired requestState/);
    expect(trips.unpark(tokens[MAX_PARKED + 1], (v): v is unknown => true)).toBeDefined();
  });
});

describe("RoundTrips.park per client", () => {
  it("a client that floods under one name loses its own oldest round trip, never another client's", () => {
    const trips = new RoundTrips();
    const victimAborted: string[] = [];
    const victim = trips.park(perRequest("victim"), { abort: (why) => victimAborted.push(why) });
    const flooded: number[] = [];
    for (let i = 0; i < MAX_PARKED * 2; i++) trips.park(perRequest("flooder"), { abort: () => flooded.push(i) });
    expect(victimAborted).toEqual([]);
    expect(trips.peek(victim)).toBeDefined();
    expect(trips.parkedBy(perRequest("flooder"))).toBe(MAX_PARKED_PER_CLIENT);
    expect(flooded.slice(0, 3)).toEqual([0, 1, 2]); // its own oldest first
    expect(trips.parkedBy(perRequest("victim"))).toBe(1);
  });

  it("over the ceiling, the client with the most gives way; requestState is taken once", () => {
    const trips = new RoundTrips();
    const sessions = Array.from({ length: MAX_PARKED / MAX_PARKED_PER_CLIENT }, () => longLived());
    const aborted = new Map<ClientSession, number>();
    for (const s of sessions) for (let i = 0; i < MAX_PARKED_PER_CLIENT; i++) trips.park(s, { abort: () => aborted.set(s, (aborted.get(s) ?? 0) + 1) });
    const small = longLived();
    const mine = trips.park(small, { abort: () => aborted.set(small, 1) });
    expect(aborted.get(small)).toBeUndefined();
    expect(aborted.get(sessions[0]!)).toBe(1); // the first of the biggest holders
    expect(trips.unpark(mine, (v): v is unknown => true)).toBeDefined();
    expect(trips.parkedBy(small)).toBe(0);
    expect(() => trips.unpark(mine, (v): v is unknown => true)).toThrow(/Invalid or expired requestState/);
  });
});

/** clientInfo is what a 2026-07-28 HTTP client declares: a hostile one may change it per request, or copy another's. */
describe("RoundTrips.park against a client that lies about its name", () => {
  const taken = (v: unknown): v is unknown => v !== undefined;

  it("a flooder that changes its name per request: at a tie the oldest round trip gives way, not the oldest client's", () => {
    const trips = new RoundTrips();
    const honestAborted: string[] = [];
    const honest = perRequest("honest");
    const first = trips.park(honest, { abort: (why) => honestAborted.push(`first: ${why}`) }); // its name is the oldest key
    let n = 0;
    const flood = () => trips.park(perRequest(`flood-${n++}`), { abort: () => {} });
    while (n < MAX_PARKED - 2) flood();
    trips.park(honest, { abort: (why) => honestAborted.push(`second: ${why}`) });
    trips.unpark(first, taken); // answered: it holds 1, as each of the flooder's names
    let newer = 0;
    while (honestAborted.length === 0) {
      flood();
      newer++;
    }
    // its round trip is kept until MAX_PARKED newer ones wait (was: at the first tie, as its name was the oldest key)
    expect(newer).toBe(MAX_PARKED);
    expect(honestAborted).toEqual([expect.stringMatching(/^second: more than 256 round trips .* the clients holding the most/)]);
  });

  it("a flooder that changes its name per request: an honest client holding more loses down to 1 first, never below while another holds more", () => {
    const trips = new RoundTrips();
    const honestAborted: number[] = [];
    const honest = perRequest("honest");
    let n = 0;
    while (n < MAX_PARKED - 3) trips.park(perRequest(`flood-${n++}`), { abort: () => {} });
    for (let i = 0; i < 3; i++) trips.park(honest, { abort: () => honestAborted.push(i) });
    trips.park(perRequest(`flood-${n++}`), { abort: () => {} });
    trips.park(perRequest(`flood-${n++}`), { abort: () => {} });
    expect(honestAborted).toEqual([0, 1]); // it held the most: its oldest went
    expect(trips.parkedBy(honest)).toBe(1);
    trips.park(perRequest(`flood-${n++}`), { abort: () => {} });
    expect(honestAborted).toEqual([0, 1]); // a tie now: the flooder's oldest go first
    expect(trips.parkedBy(honest)).toBe(1);
  });

  it("a flooder that copies the victim's name shares its per-client bound: the victim keeps its round trip until MAX_PARKED_PER_CLIENT newer ones under its name wait", () => {
    const trips = new RoundTrips();
    const victimAborted: string[] = [];
    const victim = trips.park(perRequest("claude"), { abort: (why) => victimAborted.push(why) });
    for (let i = 0; i < MAX_PARKED_PER_CLIENT - 1; i++) trips.park(perRequest("claude"), { abort: () => {} });
    expect(victimAborted).toEqual([]);
    expect(trips.peek(victim)).toBeDefined();
    trips.park(perRequest("claude"), { abort: () => {} });
    expect(victimAborted).toEqual([expect.stringMatching(/more than 32 round trips of this client/)]);
    expect(trips.peek(victim)).toBeUndefined();
  });
});
