/**
 * A 2026-07-28 server's `input_required` answers (SEP-2322, SPEC 4.8): the server asks the client things inside its
 * answer, and the client retries the same request with `inputResponses` and the server's `requestState`.
 *   - a 2026-07-28 client gets the answer as the server wrote it (its questions vetted by the policy, SPEC 9), and its
 *     retry goes to the server as it is (roots translated to the mount targets);
 *   - a 2025-11-25 client has no such answer: the gateway asks it each question as a real request (what a 2025-11-25
 *     server would have sent), and retries for it, at most MAX_ROUNDS times.
 */
import type { Request, Result } from "@modelcontextprotocol/server";
import { PENDING_PER_CLIENT, vetClientRequest } from "./client-requests.ts";
import { askLegacyClient } from "./forward.ts";
import { clientKey } from "./round-trips.ts";
import { translateRoots } from "./roots.ts";
import { ErrorCode, relayed, RpcError } from "./rpc-error.ts";
import type { ClientSession } from "./session.ts";
import type { Upstream } from "./upstream.ts";
import type { ModernRequest } from "./hub.ts";

/** Round trips the gateway makes for a 2025-11-25 client in one call before it gives up (the SDK's own default is 10). */
export const MAX_ROUNDS = 8;

export interface InputRequired {
  resultType: "input_required";
  inputRequests?: Record<string, unknown> | undefined;
  requestState?: string | undefined;
}

export function isInputRequired(r: unknown): r is InputRequired {
  return typeof r === "object" && r !== null && (r as { resultType?: unknown }).resultType === "input_required";
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The questions of an answer, each one as the policy lets it reach the client (a refused one fails the call). More
 * questions than one server may have waiting on one client (PENDING_PER_CLIENT, SECURITY boundary 5) fail the call.
 */
function vetted(up: Upstream, answer: InputRequired): [string, Request][] {
  const requests = isRecord(answer.inputRequests) ? answer.inputRequests : {};
  const count = Object.keys(requests).length;
  if (count > PENDING_PER_CLIENT) {
    throw new RpcError(
      ErrorCode.InternalError,
      `server ${up.name} asked ${count} questions at once (input_required); mcpbox passes at most ${PENDING_PER_CLIENT} ` +
        `(its cap on requests one server may have pending at the client), so this call failed`,
    );
  }
  return Object.entries(requests).map(([key, r]) => {
    const method = isRecord(r) && typeof r.method === "string" ? r.method : "";
    const params = isRecord(r) && isRecord(r.params) ? r.params : {};
    return [key, vetClientRequest(up.server, { method, params } as Request)];
  });
}

/** The answer for a 2026-07-28 client: the server's, its questions vetted (SPEC 9). */
export function forModernClient(up: Upstream, answer: InputRequired): Result {
  return { ...answer, inputRequests: Object.fromEntries(vetted(up, answer)) } as Result;
}

/** A 2026-07-28 client's retry fields, as the server gets them: its roots translated to the mount targets. */
export function retryFields(up: Upstream, modern: ModernRequest | undefined): Record<string, unknown> {
  if (!modern) return {};
  const out: Record<string, unknown> = {};
  if (modern.inputResponses !== undefined) {
    out.inputResponses = Object.fromEntries(
      Object.entries(modern.inputResponses).map(([k, v]) =>
        isRecord(v) && Array.isArray(v.roots) ? [k, { ...v, roots: translateRoots(v.roots as never, up.server.mounts) }] : [k, v],
      ),
    );
  }
  if (modern.requestState !== undefined) out.requestState = modern.requestState;
  return out;
}

/**
 * Asks a 2025-11-25 client the server's questions as real requests; the fields of the retry that carries the answers.
 * Each question holds a slot of the server's requests pending at this client (session.pending, the same bounds as a
 * 2025-11-25 server's own requests, SECURITY boundary 5): several calls' answers at once cannot put more on a client
 * than one server may have waiting there. All slots are taken before any question is asked, or none is asked.
 * A question the client cannot answer fails the call with the client's (or the policy's) words.
 */
export async function askForLegacyClient(session: ClientSession, up: Upstream, answer: InputRequired, signal: AbortSignal): Promise<Record<string, unknown>> {
  const asks = vetted(up, answer);
  if (asks.length === 0) throw new RpcError(ErrorCode.InternalError, `server ${up.name} asked for input without saying what (input_required without inputRequests)`);
  const slots: { release: () => void }[] = [];
  const releaseAll = () => slots.forEach((s) => s.release());
  for (let i = 0; i < asks.length; i++) {
    const slot = session.pending.take(up, up.name, clientKey(session));
    if ("refused" in slot) {
      releaseAll();
      throw new RpcError(ErrorCode.InvalidRequest, slot.refused);
    }
    slots.push(slot);
  }
  // each slot is given back when its question is answered (or fails): one still waiting at the client when another
  // failed the call keeps its slot until then
  const responses = await Promise.all(
    asks.map(async ([key, request], i) => {
      try {
        return [key, await askLegacyClient(session, up, request, signal)] as const;
      } catch (e) {
        throw relayed(e);
      } finally {
        slots[i]!.release();
      }
    }),
  );
  return { inputResponses: Object.fromEntries(responses), ...(answer.requestState === undefined ? {} : { requestState: answer.requestState }) };
}

export const tooManyRounds = (up: Upstream): RpcError =>
  new RpcError(ErrorCode.InternalError, `server ${up.name} asked for input more than ${MAX_ROUNDS} times in one call; mcpbox gave up on it`);
