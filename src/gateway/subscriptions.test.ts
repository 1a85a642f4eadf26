/**
 * holdSubscriptions (the HTTP listen streams) against fake servers: round trips a listen request naming many URIs
 * costs each server, when it is held and when it is let go.
 */
import { describe, expect, it } from "vitest";
import { GatewayEvents } from "../monitor/events.ts";
import { openAudit } from "./audit.ts";
import { Gateway, SUBSCRIBE_CONCURRENCY } from "./gateway.ts";
import { redactor } from "./redact.ts";
import { testServer } from "./_test-server.ts";
import type { Upstream } from "./upstream.ts";

function setup() {
  const gw = new Gateway({
    servers: [testServer("m"), testServer("l")],
    launcher: (() => {
      throw new Error("not started in this test");
    }) as never,
    session: "test",
    events: new GatewayEvents(),
    audit: openAudit({ audit: { enabled: false } } as never),
    redact: redactor([]),
    log: () => {},
  });
  const seen = { listens: 0, requests: [] as string[], inFlight: 0, peak: 0 };
  const modern = { name: "m", era: "modern", subscriptions: new Set<string>(), listen: async () => void seen.listens++ };
  const legacy = {
    name: "l",
    era: "legacy",
    state: "running",
    capabilities: { resources: { subscribe: true } },
    subscriptions: new Set<string>(),
    request: async (r: { method: string }) => {
      seen.requests.push(r.method);
      seen.peak = Math.max(seen.peak, ++seen.inFlight);
      await new Promise((res) => setTimeout(res, 1));
      seen.inFlight--;
      return {};
    },
  };
  const ups = gw.upstreams as Map<string, Upstream>;
  ups.set("m", modern as unknown as Upstream);
  ups.set("l", legacy as unknown as Upstream);
  gw.catalog = {
    ...gw.catalog,
    templateRoutes: new Map([
      ["m://{id}", { server: "m", name: "m://{id}", item: { name: "m", uriTemplate: "m://{id}" } }],
      ["l://{id}", { server: "l", name: "l://{id}", item: { name: "l", uriTemplate: "l://{id}" } }],
    ]),
  } as never;
  return { gw, seen, modern, legacy };
}

const settle = async (seen: { inFlight: number }) => {
  for (let i = 0; i < 1000 && (seen.inFlight > 0 || i < 5); i++) await new Promise((r) => setTimeout(r, 2));
};

describe("one listen request naming many URIs", () => {
  it("reopens a 2026-07-28 server's listen stream once to hold them, and once to let them go", async () => {
    const { gw, seen, modern } = setup();
    const release = gw.holdSubscriptions(Array.from({ length: 1000 }, (_, i) => `m://${i}`));
    await settle(seen);
    expect(modern.subscriptions.size).toBe(1000);
    expect(seen.listens).toBe(1);
    release!();
    await settle(seen);
    expect(modern.subscriptions.size).toBe(0);
    expect(seen.listens).toBe(2);
  });

  it("subscribes a 2025-11-25 server to each, a few at a time, and unsubscribes the same way", async () => {
    const { gw, seen, legacy } = setup();
    const release = gw.holdSubscriptions(Array.from({ length: 200 }, (_, i) => `l://${i}`));
    await settle(seen);
    expect(seen.requests.filter((m) => m === "resources/subscribe")).toHaveLength(200);
    expect(seen.peak).toBeLessThanOrEqual(SUBSCRIBE_CONCURRENCY);
    release!();
    await settle(seen);
    expect(legacy.subscriptions.size).toBe(0);
    expect(seen.requests.filter((m) => m === "resources/unsubscribe")).toHaveLength(200);
    expect(seen.peak).toBeLessThanOrEqual(SUBSCRIBE_CONCURRENCY);
  });
});
