import { describe, expect, it } from "vitest";
import { PENDING_PER_CLIENT, PENDING_PER_SERVER, PendingRequests } from "./client-requests.ts";
import { capMessage } from "./limits.ts";
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

/**
 * A 2025-11-25 client that counts the requests it has in flight at once; `hold` keeps it from answering until
 * `answer()`. Its sessions share `pending` as one gateway's do.
 */
function legacyClient(pending = new PendingRequests<Upstream>(), hold = false) {
  const seen = { inFlight: 0, peak: 0, total: 0 };
  let open!: () => void;
  const gate = hold ? new Promise<void>((r) => (open = r)) : Promise.resolve();
  const session = {
    capabilities: { elicitation: {} },
    pending,
    legacy: {
      request: async () => {
        seen.total++;
        seen.peak = Math.max(seen.peak, ++seen.inFlight);
        await gate;
        await new Promise((r) => setTimeout(r, 5));
        seen.inFlight--;
        return { action: "decline" };
      },
    },
  } as unknown as ClientSession;
  return { session, seen, answer: () => open() };
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

  it("counts each question waiting at a 2025-11-25 client against the bounds of the server's own requests there", async () => {
    const pending = new PendingRequests<Upstream>();
    const { session, seen, answer: letAnswer } = legacyClient(pending, true);
    // one call's answer fills what the server may have waiting at this client: its 16 questions wait there
    const first = askForLegacyClient(session, up, answer(PENDING_PER_CLIENT), new AbortController().signal);
    await new Promise((r) => setTimeout(r, 10));
    expect(pending.count(up, session)).toBe(PENDING_PER_CLIENT);
    // another call's question to the same client is refused, none of it asked (two answers of 16 were 32 at the client)
    await expect(askForLegacyClient(session, up, answer(1), new AbortController().signal)).rejects.toThrow(capMessage.pending("evil"));
    // and so is a request the server sends itself (2025-11-25 style), as forward.ts takes its slot
    expect(pending.take(up, up.name, session)).toMatchObject({ refused: capMessage.pending("evil") });
    expect(seen.total).toBe(PENDING_PER_CLIENT);
    letAnswer();
    await first;
    expect(pending.count(up)).toBe(0); // every slot given back with its answer
    expect(Object.keys((await askForLegacyClient(session, up, answer(2), new AbortController().signal)).inputResponses as object)).toHaveLength(2);
  });

  it("counts the questions at all clients together against the server's total bound", async () => {
    const pending = new PendingRequests<Upstream>();
    const clients = Array.from({ length: PENDING_PER_SERVER / PENDING_PER_CLIENT + 1 }, () => legacyClient(pending, true));
    const asked = clients.slice(0, -1).map((c) => askForLegacyClient(c.session, up, answer(PENDING_PER_CLIENT), new AbortController().signal));
    await new Promise((r) => setTimeout(r, 10));
    expect(pending.count(up)).toBe(PENDING_PER_SERVER);
    const last = clients.at(-1)!;
    await expect(askForLegacyClient(last.session, up, answer(1), new AbortController().signal)).rejects.toThrow(`already has ${PENDING_PER_SERVER} requests pending at its clients together`);
    expect(last.seen.total).toBe(0);
    for (const c of clients) c.answer();
    await Promise.all(asked);
    expect(pending.count(up)).toBe(0);
  });

  it("refuses to pass an answer with more questions than the cap to a 2026-07-28 client, and passes one at the cap", () => {
    expect(() => forModernClient(up, answer(PENDING_PER_CLIENT + 1))).toThrow(`server evil asked ${PENDING_PER_CLIENT + 1} questions at once`);
    const passed = forModernClient(up, answer(PENDING_PER_CLIENT)) as { inputRequests: Record<string, unknown> };
    expect(Object.keys(passed.inputRequests)).toHaveLength(PENDING_PER_CLIENT);
  });
});
