/**
 * tools/call through the guards (SPEC 4.4): policy-hidden tools refused, path arguments kept inside the mounts,
 * `approve` tools asked to a person through elicitation. Refusals are tool errors the model can read, audited.
 */
import { inputRequired, specTypeSchemas, type CallToolRequest, type CallToolResult } from "@modelcontextprotocol/server";
import { forward, forwardModern, record, type Extra } from "./calls.ts";
import { isInputRequired } from "./input-required.ts";
import { withTaskHandles } from "./tasks.ts";
import type { Catalog } from "./catalog.ts";
import type { Hub as Gateway } from "./hub.ts";
import type { ClientSession } from "./session.ts";
import { ErrorCode, RpcError } from "./rpc-error.ts";
import { toolPolicy } from "./guards.ts";
import { checkPathArguments } from "./paths.ts";
import type { Upstream } from "./upstream.ts";

/** What the guards say of a call, before anything is sent (shared by this path and the fast lane). */
export type ToolCallPlan =
  | { kind: "unknown" }
  | { kind: "hidden"; server: string; tool: string; reason: string }
  | { kind: "outside"; up: Upstream; tool: string; reason: string }
  | { kind: "approve"; up: Upstream; tool: string }
  | { kind: "forward"; up: Upstream; tool: string };

export function planToolCall(gw: Gateway, catalog: Catalog, name: string, args: Record<string, unknown>): ToolCallPlan {
  const hidden = catalog.hiddenTools.get(name);
  if (hidden) {
    const reason = `tool ${hidden.name} is not allowed by the tools.allow/deny policy of server ${hidden.server}`;
    return { kind: "hidden", server: hidden.server, tool: hidden.name, reason };
  }
  // a transparent proxy lets its server answer a name it did not list, in its own words (as it would without mcpbox)
  const route = catalog.toolRoutes.get(name) ?? (gw.transparent ? unlisted(gw, name) : undefined);
  if (!route) return { kind: "unknown" };
  const up = gw.upstream(route.server);
  const paths = checkPathArguments(args, mountTargets(up.server), up.server.pathArguments);
  if (!paths.ok) return { kind: "outside", up, tool: route.name, reason: paths.reason };
  return { kind: toolPolicy(up.server).needsApproval(route.name) ? "approve" : "forward", up, tool: route.name };
}

/** A server's mount targets, listed once per resolved server (a resolved server never changes), not once per call. */
const targets = new WeakMap<Upstream["server"], readonly string[]>();
export function mountTargets(server: Upstream["server"]): readonly string[] {
  let list = targets.get(server);
  if (!list) targets.set(server, (list = Object.freeze(server.mounts.map((m) => m.target))));
  return list;
}

function unlisted(gw: Gateway, name: string): { server: string; name: string } | undefined {
  const up = [...gw.upstreams.values()][0];
  return up && toolPolicy(up.server).visible(name) ? { server: up.name, name } : undefined;
}

export async function callTool(gw: Gateway, session: ClientSession, request: CallToolRequest, extra: Extra): Promise<CallToolResult> {
  const name = request.params.name;
  const args = request.params.arguments ?? {};
  let catalog = gw.catalog;
  if (!catalog.toolRoutes.has(name) && !catalog.hiddenTools.has(name)) catalog = await gw.ready();
  const plan = planToolCall(gw, catalog, name, args);
  if (plan.kind === "unknown") throw new RpcError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
  if (plan.kind === "hidden") return refuse(gw, plan.server, plan.tool, args, "denied", plan.reason);
  const { up, tool } = plan;
  if (plan.kind === "outside") return refuse(gw, up.name, tool, args, "denied", plan.reason);
  let exact = args;
  let ext = extra;
  let continuing = false;
  if (plan.kind === "approve") {
    // the approval holds for exactly what the person saw: a copy taken before asking is what is sent
    exact = JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
    let verdict: Verdict;
    if (extra.modern) {
      const asked = await askApprovalModern(gw, session, up, tool, exact, extra);
      if (asked.kind === "ask") return asked.result as CallToolResult;
      verdict = asked.verdict;
      exact = asked.args;
      // the approval's round trip ends here; a call approved before goes on with the server's own (its state, the answers)
      continuing = asked.kind === "continue";
      const going = asked.kind === "continue" ? { requestState: asked.serverState } : { requestState: undefined, inputResponses: undefined };
      ext = { ...extra, modern: { ...extra.modern, ...going } };
    } else verdict = await askApproval(gw, session, up, tool, exact, extra);
    if (verdict !== "approved") {
      const why =
        verdict === "refused"
          ? `tool ${tool} of server ${up.name} needs a person's approval (approve in the config), and this MCP client cannot ask for it (no elicitation support)`
          : verdict === "too-long"
            ? `the arguments of this call of ${tool} (server ${up.name}) are too long to show for approval (over ${MAX_APPROVAL_CHARS} characters)`
            : `a person declined this call of ${tool} (server ${up.name})`;
      return refuse(gw, up.name, tool, args, verdict === "too-long" ? "refused" : verdict, why);
    }
    if (!continuing) guardEvent(gw, up.name, tool, "approved", "approved by a person");
  }
  const params = { ...request.params, name: tool, arguments: exact };
  const send = ext.modern ? forwardModern : forward;
  const result = await send(gw, session, up, { method: "tools/call", params }, ext, { method: "tools/call", tool, args: exact });
  if (plan.kind === "approve" && ext.modern && isInputRequired(result)) {
    // an approved call whose 2026-07-28 server asks for more: the client's retry is known as approved, for exactly
    // these arguments, by a token of the gateway's that holds the server's own state (never asked to approve again)
    const held = new Approved(up, tool, exact, result.requestState);
    return { ...result, requestState: gw.roundTrips.park(session, held) } as unknown as CallToolResult;
  }
  if (gw.transparent || !("task" in result)) return result as CallToolResult;
  // a task it made (the tasks extension): its handle names the server, and its status goes to this client
  const named = withTaskHandles(result, up.name);
  const handle = (named.task as { taskId?: unknown } | undefined)?.taskId;
  if (typeof handle === "string" && !session.perRequest) gw.taskOwners.set(handle, session); // see ownsTask (handlers.ts)
  return named as CallToolResult;
}

type Verdict = "approved" | "denied" | "refused" | "too-long";

/** The most of a call's arguments an approval prompt shows; a call with more cannot be approved (nothing is hidden). */
export const MAX_APPROVAL_CHARS = 4000;

/**
 * JSON with every character that could hide, fake or reorder text escaped: controls, format characters (bidi, tags),
 * separators, unassigned and private code points, default-ignorables (variation selectors, fillers) and the blank
 * letters that render as nothing.
 */
const HIDING = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u115f\u1160\u2800\u3164\uffa0]/gu;

export function shownJson(value: unknown, redact: (s: string) => string = (s) => s): string {
  // each UTF-16 unit as \uXXXX: what JSON itself would write, so the person sees exactly which characters are there
  const escape = (c: string) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");
  return redact(JSON.stringify(value) ?? "{}").replace(HIDING, escape);
}

export const shownArguments = shownJson;

const approvalRequest = (up: Upstream, tool: string, shown: string) => ({
  method: "elicitation/create" as const,
  params: {
    message: `mcpbox: allow server "${up.name}" to run tool ${shownJson(tool)} with arguments ${shown}?`,
    requestedSchema: {
      type: "object" as const,
      properties: { approve: { type: "boolean" as const, title: "Allow this call", default: true } },
    },
  },
});

const verdictOf = (result: { action?: unknown; content?: Record<string, unknown> | undefined }): Verdict =>
  result.action === "accept" && result.content?.approve !== false ? "approved" : "denied";

async function askApproval(gw: Gateway, session: ClientSession, up: Upstream, tool: string, args: unknown, extra: Extra): Promise<Verdict> {
  if (!session.capabilities?.elicitation || !session.legacy) return "refused";
  const shown = shownArguments(args, gw.options.redact);
  if (shown.length > MAX_APPROVAL_CHARS) return "too-long";
  const result = await session.legacy.request(approvalRequest(up, tool, shown), specTypeSchemas.ElicitResult as never, { signal: extra.signal, timeout: up.server.timeouts.callMs });
  return verdictOf(result);
}

/** An approval a modern client was asked for: the exact arguments it holds for wait in the session. */
class Approval {
  readonly up: Upstream;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  constructor(up: Upstream, tool: string, args: Record<string, unknown>) {
    this.up = up;
    this.tool = tool;
    this.args = args;
  }
  abort(): void {}
}

const isApproval = (v: unknown): v is Approval => v instanceof Approval;

/** A call a person approved whose server asked for more: its exact arguments and the server's requestState. */
class Approved {
  readonly up: Upstream;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly serverState: string | undefined;
  constructor(up: Upstream, tool: string, args: Record<string, unknown>, serverState: string | undefined) {
    this.up = up;
    this.tool = tool;
    this.args = args;
    this.serverState = serverState;
  }
  abort(): void {}
}

const isApproved = (v: unknown): v is Approved => v instanceof Approved;

/**
 * A modern client is asked in a round trip: the first request is answered `input_required` with the prompt, the retry
 * carries the person's answer. The call then runs with the arguments the person saw, kept here, not the retry's.
 */
async function askApprovalModern(
  gw: Gateway,
  session: ClientSession,
  up: Upstream,
  tool: string,
  args: Record<string, unknown>,
  extra: Extra,
): Promise<
  | { kind: "ask"; result: unknown }
  | { kind: "verdict"; verdict: Verdict; args: Record<string, unknown> }
  | { kind: "continue"; verdict: "approved"; args: Record<string, unknown>; serverState: string | undefined }
> {
  const modern = extra.modern!;
  if (modern.requestState !== undefined && isApproved(gw.roundTrips.peek(modern.requestState))) {
    const approved = gw.roundTrips.unpark(modern.requestState, isApproved);
    if (approved.up !== up || approved.tool !== tool) throw new RpcError(ErrorCode.InvalidParams, "Invalid or expired requestState");
    return { kind: "continue", verdict: "approved", args: approved.args, serverState: approved.serverState };
  }
  if (modern.requestState !== undefined && isApproval(gw.roundTrips.peek(modern.requestState))) {
    const approval = gw.roundTrips.unpark(modern.requestState, isApproval);
    if (approval.up !== up || approval.tool !== tool) throw new RpcError(ErrorCode.InvalidParams, "Invalid or expired requestState");
    const answer = modern.inputResponses?.approve as { action?: unknown; content?: Record<string, unknown> } | undefined;
    return { kind: "verdict", verdict: answer ? verdictOf(answer) : "denied", args: approval.args };
  }
  if (!modern.capabilities?.elicitation) return { kind: "verdict", verdict: "refused", args };
  const shown = shownArguments(args, gw.options.redact);
  if (shown.length > MAX_APPROVAL_CHARS) return { kind: "verdict", verdict: "too-long", args };
  const requestState = gw.roundTrips.park(session, new Approval(up, tool, args));
  return { kind: "ask", result: inputRequired({ inputRequests: { approve: approvalRequest(up, tool, shown) }, requestState } as never) };
}

function refuse(gw: Gateway, server: string, tool: string, args: unknown, decision: "denied" | "refused", reason: string): CallToolResult {
  guardEvent(gw, server, tool, decision, reason);
  record(gw, server, { method: "tools/call", tool, args }, "denied", 0, 0, reason);
  gw.options.log(`${server}: refused ${gw.options.redact(tool)}: ${gw.options.redact(reason)}`);
  return { isError: true, content: [{ type: "text", text: `mcpbox refused this call: ${reason}` }] };
}

function guardEvent(gw: Gateway, server: string, tool: string, decision: "denied" | "approved" | "refused", reason: string): void {
  gw.options.events.emit({ type: "guard", at: Date.now(), server, tool: gw.options.redact(tool), decision, reason: gw.options.redact(reason) });
}
