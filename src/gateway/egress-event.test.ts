import { describe, expect, it } from "vitest";
import { egressEvent } from "./start.ts";

describe("egressEvent", () => {
  it("turns a redacted egress record into a monitor event at the record's time", () => {
    const record = {
      time: "2026-01-01T12:00:00.000Z", server: "web", host: "evil.test", port: 443, outcome: "denied", reason: "not in network.allow",
      bytesUp: 0, bytesDown: 0, durationMs: 2, via: "connect",
    } as const;
    expect(egressEvent(record)).toEqual({
      type: "egress", at: Date.UTC(2026, 0, 1, 12), server: "web", host: "evil.test", port: 443, outcome: "denied",
      reason: "not in network.allow", bytesUp: 0, bytesDown: 0, durationMs: 2,
    });
    expect(egressEvent({ ...record, time: "garbage", outcome: "ok", reason: undefined as never }, 42)).toMatchObject({ at: 42, outcome: "ok" });
    expect(egressEvent({ ...record, time: "garbage", outcome: "ok", reason: undefined as never }, 42)).not.toHaveProperty("reason");
  });
});
