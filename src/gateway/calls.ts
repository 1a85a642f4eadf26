/**
 * A request routed to one server: progress tokens mapped, cancellation passed on, the per-call timeout, and an
 * audit line plus a call event for tools/call, prompts/get and resources/read (SPEC 4.3, 4.7).
 */
import { inputRequired, ProtocolError, type LoggingLevel, type Request, type Result } from "@modelcontextprotocol/server";
import type { CallOutcome } from "../monitor/events.ts";
import { isoTime, type AuditRecord } from "./audit.ts";
import { admitNotification } from "./forward.ts";
import type { CallInfo, Extra, Hub as Gateway } from "./hub.ts";

export type { CallInfo, Extra, ModernRequest } from "./hub.ts";
import type { ClientSession } from "./session.ts";
import { askForLegacyClient, forModernClient, isInputRequired, MAX_ROUNDS, retryFields, tooManyRounds } from "./input-required.ts";
import { legacyToolResult } from "./legacy-wrap.ts";
import { withDataIconsIn } from "./icons.ts";
import { CallState } from "./round-trips.ts";
import { translateRoots } from "./roots.ts";
import { ErrorCode, RpcError } from "./rpc-error.ts";
import { auditValue } from "./redact.ts";
import type { Upstream } from "./upstream.ts";


const isCallState = (v: unknown): v is CallState => v instanceof CallState;

/**
 * A modern client's request to `up` (SPEC 4.8): the server's requests during it come back as `input_required`, and
 * the client's retry (its requestState) continues the same call with the answers (round-trips.ts).
 */
export async function forwardModern(gw: Gateway, session: ClientSession, up: Upstream, request: Request, extra: Extra, info?: CallInfo): Promise<Result> {
  const modern = extra.modern!;
  const trips = gw.roundTrips;
  if (up.era === "modern") {
    // a 2026-07-28 server asks in its answer itself (input-required.ts): the request goes as it is; the call is known
    // here only for the log messages the server sends during it (broadcastLog)
    const state = new CallState(up, session);
    state.logLevel = modern.logLevel;
    state.sendNotification = extra.sendNotification;
    trips.track(state);
    try {
      return await forward(gw, session, up, request, extra, info);
    } finally {
      trips.untrack(state);
    }
  }
  let state: CallState;
  if (modern.requestState !== undefined) {
    state = trips.unpark(modern.requestState, isCallState);
    if (state.up !== up) throw new RpcError(ErrorCode.InvalidParams, "Invalid or expired requestState");
    state.logLevel = modern.logLevel;
    state.capabilities = modern.capabilities ?? state.capabilities;
    state.waiter = session;
    state.answer(modern.inputResponses, (ask, response) =>
      ask.method === "roots/list" ? { ...response, roots: translateRoots((response as { roots?: [] }).roots ?? [], up.server.mounts) } : response,
    );
  } else {
    state = new CallState(up, session);
    state.logLevel = modern.logLevel;
    state.capabilities = modern.capabilities ?? session.capabilities;
    trips.track(state);
    // progress goes to the client request waiting on the call now (none while it is parked)
    const own: Extra = { signal: state.controller.signal, detached: true, sendNotification: (n) => state.sendNotification?.(n) ?? Promise.resolve() };
    state.result = forward(gw, session, up, request, own, info).finally(() => trips.untrack(state));
    state.result.catch(() => {}); // awaited by next(); a call the client left is not an unhandled rejection
  }
  state.sendNotification = extra.sendNotification;
  const cancel = () => state.abort("cancelled by the client");
  extra.signal.addEventListener("abort", cancel);
  try {
    let next: Awaited<ReturnType<CallState["next"]>>;
    try {
      next = await state.next();
    } catch (e) {
      // refused for this client (a capability it lacks): the server's call ends here, nobody retries it
      state.abort(e instanceof Error ? e.message : String(e));
      throw e;
    }
    if ("result" in next) return next.result;
    state.waiter = undefined;
    state.sendNotification = undefined;
    const requestState = trips.park(session, state);
    const inputRequests = Object.fromEntries(next.asks.map((a) => [a.key, { method: a.request.method, params: a.request.params ?? {} }]));
    return inputRequired({ inputRequests, requestState } as never) as unknown as Result;
  } finally {
    extra.signal.removeEventListener("abort", cancel);
  }
}


/** Sends `request` to `up` on behalf of the client request of `session` described by `extra`. */
export async function forward(gw: Gateway, session: ClientSession, up: Upstream, request: Request, extra: Extra, info?: CallInfo): Promise<Result> {
  if (up.era === "modern") request = inModernEra(gw, session, up, request, extra);
  // tools/call, its guards done, takes the one route of tools/call to a running server (fast-lane.ts); a call planned
  // from the lists of the server's last run (catalog cache) that waited meanwhile (an approval) is refused when the
  // started server no longer lists its tool, as the SDK route refuses it (upstream.ts #stillOffered)
  if (request.method === "tools/call" && info?.tool !== undefined && !gw.transparent && up.state === "running" && !up.offersTool(info.tool)) {
    const reason = noLongerOffered(up.name, info.tool);
    record(gw, up.name, info, "error", 0, 0, reason);
    throw new RpcError(ErrorCode.InvalidParams, reason);
  }
  if (request.method === "tools/call" && info) {
    const routed = gw.fastLane.call(session, up, (request.params ?? {}) as Record<string, unknown>, extra, info);
    if (routed) return routed;
  }
  const started = Date.now();
  session.callStarted(up);
  const { params, progressToken } = withoutProgressToken(request.params);
  const callMs = up.server.timeouts.callMs;
  let outcome: CallOutcome = "error";
  let bytes = 0;
  let reason: string | undefined;
  try {
    const send = (p: Request["params"]) =>
      up.request(
        { method: request.method, ...(p === undefined ? {} : { params: p }) },
        {
          signal: extra.signal,
          timeout: callMs,
          ...(progressToken === undefined
            ? {}
            : {
                onprogress: (p) => {
                  if (admitNotification(gw, up)) void extra.sendNotification({ method: "notifications/progress", params: { ...p, progressToken } }).catch(() => {});
                },
              }),
        },
      );
    let result = await send(params);
    // a 2026-07-28 server's questions: passed on to a 2026-07-28 client, asked for a 2025-11-25 one (input-required.ts)
    for (let round = 0; isInputRequired(result); round++) {
      if (extra.modern) return forModernClient(up, result);
      if (round >= MAX_ROUNDS) throw tooManyRounds(up);
      result = await send({ ...params, ...(await askForLegacyClient(session, up, result, extra.signal)) });
    }
    // a 2025-11-25 client: the result as the SDK's 2025 codec projects it (SEP-2106), as on the raw route (legacy-wrap.ts)
    if (request.method === "tools/call" && !extra.modern) result = (legacyToolResult(result, () => up.lists.tools.find((t) => t.name === info?.tool)?.outputSchema) as Result | undefined) ?? result;
    result = withDataIconsIn(result); // only data: icons on its resource links, as in the lists (icons.ts)
    outcome = result.isError === true ? "error" : "ok";
    bytes = Buffer.byteLength(JSON.stringify(result));
    return result;
  } catch (e) {
    reason = e instanceof Error ? e.message : String(e);
    if (extra.signal.aborted) outcome = "cancelled";
    else if (e instanceof ProtocolError && e.code === ErrorCode.RequestTimeout) {
      outcome = "timeout";
      reason = timeoutReason(up.name, info?.tool ?? request.method, callMs);
      throw new RpcError(ErrorCode.RequestTimeout, reason);
    }
    throw e;
  } finally {
    session.callEnded(up);
    if (info) record(gw, up.name, info, outcome, Date.now() - started, bytes, reason);
  }
}

/**
 * A request to a 2026-07-28 server: its `_meta` envelope says what the client it is for can do and the log level it
 * asked for; a 2026-07-28 client's retry fields go with it.
 */
function inModernEra(gw: Gateway, session: ClientSession, up: Upstream, request: Request, extra: Extra): Request {
  const caps = extra.modern ? (extra.modern.capabilities ?? session.capabilities) : session.capabilities;
  const level = extra.modern ? extra.modern.logLevel : legacyClientsLevel(gw);
  // the retry fields are the gateway's to set (an approval's own round trip is not the server's: tool-call.ts)
  const { inputResponses: _responses, requestState: _state, ...params } = (request.params ?? {}) as Record<string, unknown>;
  const meta = { ...((params._meta as Record<string, unknown> | undefined) ?? {}), ...up.modernMeta(caps, level) };
  return { method: request.method, params: { ...params, ...retryFields(up, extra.modern), _meta: meta } } as Request;
}

/**
 * The log level a 2026-07-28 server is asked for on behalf of 2025-11-25 clients: the most verbose one they set, and
 * everything while none did (what a 2025-11-25 server sends before any logging/setLevel).
 */
export const legacyClientsLevel = (gw: Gateway): LoggingLevel => gw.upstreamLogLevel() ?? "debug";

/** The words of upstream.ts #stillOffered for a tool the started server no longer lists. */
const noLongerOffered = (server: string, tool: string): string =>
  `server ${server} no longer offers the tool ${tool}: the list shown while it started was from its last run (list again for what it offers now)`;

export const timeoutReason = (server: string, what: string, ms: number): string =>
  `server ${server}: ${what} timed out after ${ms} ms (timeouts.callMs)`;

/** One audit line and one call event. */
export function record(
  gw: Gateway,
  server: string,
  info: CallInfo,
  outcome: CallOutcome,
  durationMs: number,
  bytes: number,
  reason?: string,
): void {
  const { session, audit, events, redact } = gw.options;
  const at = Date.now();
  // the tool's (prompt's, resource's) name is the server's choice, or the client's: a secret in it is hidden too (hrev)
  const tool = info.tool === undefined ? undefined : redact(info.tool);
  // a builtin server's tool calls are audited by the server itself, with what the gateway cannot see (exact code,
  // exit status); one line per call (SPEC 4.7). Refusals never reach it, so the gateway writes those.
  const selfAudited = outcome !== "denied" && info.method === "tools/call" && gw.upstreams.get(server)?.server.source.kind === "builtin";
  if (!selfAudited) {
    // the members in the line's order, set one by one: no spread of a literal per member (a hot path, issue 15)
    const line: AuditRecord = { time: isoTime(at), session, server, method: info.method } as AuditRecord;
    if (tool !== undefined) line.tool = tool;
    if (info.args !== undefined) line.arguments = auditValue(info.args, redact);
    line.outcome = outcome;
    line.durationMs = durationMs;
    line.bytes = bytes;
    if (reason !== undefined) line.reason = redact(reason);
    audit.write(line);
  }
  events.emit({ type: "call", at, server, method: info.method, tool, durationMs, outcome, bytes });
}

/** The client's progress token is replaced by the SDK's own on the way up; the answer maps back to it. */
function withoutProgressToken(params: Request["params"]): { params: Request["params"]; progressToken: string | number | undefined } {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (!params || !meta || !("progressToken" in meta)) return { params, progressToken: undefined };
  const { progressToken, ...rest } = meta;
  const next = { ...params, _meta: rest };
  if (Object.keys(rest).length === 0) delete (next as { _meta?: unknown })._meta;
  return { params: next, progressToken: progressToken as string | number | undefined };
}
