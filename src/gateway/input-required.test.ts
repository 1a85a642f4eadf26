import { describe, expect, it } from "vitest";
import { PENDING_PER_CLIENT } from "./client-requests.ts";
import { askForLegacyClient, forModernClient, type InputRequired } from "./input-required.ts";
import type { ClientSession } from "./session.ts";
import type { Upstream } from "./upstream.ts";

const up = {
  name: "evil",
  server: { name: "evil", clientRequests: { sampling: true, elicitation: true, roots: true }, timeouts: { callMs: 5000 }, mounts: [] },
} as unknown as Upstream;

const answer = (n: number): InputRequired => ({
  resultType: "input_required",
  inputRequests: Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`q${i}`, { method: "elicitation/create", params: { message: `q${i}`, requestedSchema: { type: "object", properties: {} } } }]),
  ),
});

/** A 2025-11-25 client that counts the requests it has in flight at once. */
function legacyClient() {
  const seen = { inFlight: 0, peak: 0, total: 0 };
  const session = {
    capabilities: { elicitation: {} },
    legacy: {
      request: async () => {
        seen.total++;
        seen.peak = Math.max(seen.peak, ++seen.inFlight);
        await new Promise((r) => setTimeout(r, 5));
        seen.inFlight--;
        return { action: "decline" };
      },
    },
  } as unknown as ClientSession;
  return { session, seen };
}

describe("input_required questions are bounded by the per-client cap (SECURITY boundary 5)", () => {
  it("asks a 2025-11-25 client none of an answer with more questions than the cap, and says why", async () => {
    const { session, seen } = legacyClient();
    const ask = askForLegacyClient(session, up, answer(500), new AbortController().signal);
    await expect(ask).rejects.toThrow(`server evil asked 500 questions at once (input_required); mcpbox passes at most ${PENDING_PER_CLIENT}`);
    expect(seen.total).toBe(0);
    expect(seen.peak).toBe(0);
  });

  it("still asks a 2025-11-25 client up to the cap", async () => {
    const { session, seen } = legacyClient();
    const fields = await askForLegacyClient(session, up, answer(PENDING_PER_CLIENT), new AbortController().signal);
    expect(Object.keys(fields.inputResponses as object)).toHaveLength(PENDING_PER_CLIENT);
    expect(seen.peak).toBeLessThanOrEqual(PENDING_PER_CLIENT);
  });

  it("refuses to pass an answer with more questions than the cap to a 2026-07-28 client, and passes one at the cap", () => {
    expect(() => forModernClient(up, answer(PENDING_PER_CLIENT + 1))).toThrow(`server evil asked ${PENDING_PER_CLIENT + 1} questions at once`);
    const passed = forModernClient(up, answer(PENDING_PER_CLIENT)) as { inputRequests: Record<string, unknown> };
    expect(Object.keys(passed.inputRequests)).toHaveLength(PENDING_PER_CLIENT);
  });
});
