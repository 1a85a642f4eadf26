/**
 * A request routed to one server: progress tokens mapped, cancellation passed on, the per-call timeout, and an
 * audit line plus a call event for tools/call, prompts/get and resources/read (SPEC 4.3, 4.7).
 */
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode,
  McpError,
  type Request,
  type Result,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { CallOutcome } from "./events.ts";
import { admitNotification } from "./forward.ts";
import type { Gateway } from "./gateway.ts";
import type { ClientSession } from "./session.ts";
import { RpcError } from "./rpc-error.ts";
import { auditValue } from "./redact.ts";
import type { Upstream } from "./upstream.ts";

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface CallInfo {
  method: string;
  tool?: string | undefined;
  args?: unknown;
}

/** Sends `request` to `up` on behalf of the client request of `session` described by `extra`. */
export async function forward(gw: Gateway, session: ClientSession, up: Upstream, request: Request, extra: Extra, info?: CallInfo): Promise<Result> {
  const started = Date.now();
  session.callStarted(up);
  const { params, progressToken } = withoutProgressToken(request.params);
  const callMs = up.server.timeouts.callMs;
  let outcome: CallOutcome = "error";
  let bytes = 0;
  let reason: string | undefined;
  try {
    const result = await up.request(
      { method: request.method, ...(params === undefined ? {} : { params }) },
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
    outcome = result.isError === true ? "error" : "ok";
    bytes = Buffer.byteLength(JSON.stringify(result));
    return result;
  } catch (e) {
    reason = e instanceof Error ? e.message : String(e);
    if (extra.signal.aborted) outcome = "cancelled";
    else if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
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
  // a builtin server's tool calls are audited by the server itself, with what the gateway cannot see (exact code,
  // exit status); one line per call (SPEC 4.7). Refusals never reach it, so the gateway writes those.
  const selfAudited = outcome !== "denied" && info.method === "tools/call" && gw.upstreams.get(server)?.server.source.kind === "builtin";
  if (!selfAudited) audit.write({
    time: new Date(at).toISOString(),
    session,
    server,
    method: info.method,
    ...(info.tool === undefined ? {} : { tool: info.tool }),
    ...(info.args === undefined ? {} : { arguments: auditValue(info.args, redact) }),
    outcome,
    durationMs,
    bytes,
    ...(reason === undefined ? {} : { reason: redact(reason) }),
  });
  events.emit({ type: "call", at, server, method: info.method, tool: info.tool, durationMs, outcome, bytes });
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
