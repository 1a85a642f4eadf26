/**
 * The raw route of tools/call, the gateway's hot path, shared by every client session that speaks over a raw
 * channel (stdio). A call the guards let through as it is (a visible tool, no approval, paths inside the mounts) to a
 * running server goes there as raw JSON-RPC under a gateway id (which is also its progress token, when the client
 * asked for progress), and its progress and answer come back the same way to that client only, in the order the
 * server wrote them (log messages too, to every client): no second round of SDK validation, dispatch and
 * serialisation on each side.
 * Timeouts, cancellation, a server dying mid-call and the audit line behave as on the SDK path (tool-call.ts), which
 * still takes every other request, every refusal and every call this lane declines.
 */
import { ProtocolError, type Result } from "@modelcontextprotocol/server";
import { legacyClientsLevel, record, timeoutReason, type CallInfo, type Extra } from "./calls.ts";
import type { CallOutcome } from "../monitor/events.ts";
import { admitNotification, broadcastLog } from "./forward.ts";
import type { Hub as Gateway } from "./hub.ts";
import { askForLegacyClient, forModernClient, isInputRequired, MAX_ROUNDS, tooManyRounds, type InputRequired } from "./input-required.ts";
import { legacyToolResult } from "./legacy-wrap.ts";
import { withDataIconsIn } from "./icons.ts";
import { ErrorCode, RpcError } from "./rpc-error.ts";
import type { ClientSession } from "./session.ts";
import { planToolCall } from "./tool-call.ts";
import type { Upstream } from "./upstream.ts";

type Id = string | number;

/** Where the answer of a call the SDK path handed to this route goes (instead of the client's raw channel). */
interface Sink {
  answered(payload: { result: unknown } | { error: { code: number; message: string; data?: unknown } }): void;
  progress(params: Record<string, unknown>): Promise<void>;
  cancelled(reason: string): void;
}

interface Pending {
  /** the gateway id it is under now (a round trip's retry gives it a new one) */
  id: string;
  session: ClientSession;
  clientId: Id | undefined;
  sink?: Sink | undefined;
  /** the client's progress token, when it asked for progress */
  progressToken: Id | undefined;
  up: Upstream;
  started: number;
  info: CallInfo;
  /** its deadline (performance.now()) and its place among the calls of the same timeouts.callMs (Deadlines) */
  deadline: number;
  deadlines: Deadlines | undefined;
  prev: Pending | undefined;
  next: Pending | undefined;
  /** a modern round trip's call: it outlives the client request (session) that started it; its signal alone ends it */
  detached?: boolean | undefined;
  /** its answer came and waits one microtask (a call with progress) */
  deferred?: boolean | undefined;
  /** the last progress notification handed to the SDK (a sink's answer goes after it, as the server wrote them) */
  progressSent?: Promise<void> | undefined;
  /** the client is being asked the server's questions (a 2026-07-28 server, a 2025-11-25 client) */
  asking?: AbortController | undefined;
  /** a call to a 2026-07-28 server: what was sent (its retries send it again, with the answers), whether the client is
   * a 2026-07-28 one (it then gets the server's input_required as it is), the rounds asked so far */
  sent?: { params: Record<string, unknown>; modernClient: boolean; rounds: number } | undefined;
  /** a 2025-11-25 client: its result is projected as the SDK's 2025 codec would (legacyToolResult); the exposed name of
   * the tool, when known (its listed outputSchema is looked up only for a result that carries structuredContent) */
  legacy?: { exposed: string | undefined } | undefined;
}

/** Ids the lane gives its requests upstream: strings, so they never meet the SDK Client's numeric ones. */
const ID_PREFIX = "mcpbox-fast-";

export class FastLane {
  readonly #gw: Gateway;
  readonly #pending = new Map<string, Pending>();
  /** per session: the client's id → the gateway id of its call */
  readonly #byClientId = new Map<ClientSession, Map<Id, string>>();
  #next = 0;
  /** per timeouts.callMs: its calls' deadlines behind one timer */
  readonly #deadlines = new Map<number, Deadlines>();

  constructor(gw: Gateway) {
    this.#gw = gw;
  }

  /** A message from a client: true when the lane took it (a tools/call it forwarded, or a cancel of one). */
  fromClient(session: ClientSession, m: unknown): boolean {
    if (!isRecord(m) || m.jsonrpc !== "2.0" || !session.raw) return false;
    if (m.method === "notifications/cancelled") return this.#cancel(session, m.params);
    if (m.method !== "tools/call" || !session.initialized || session.era !== "legacy" || !isId(m.id) || !isRecord(m.params)) return false;
    const params = m.params;
    const args = params.arguments ?? {};
    const progressToken = isRecord(params._meta) ? params._meta.progressToken : undefined;
    if (typeof params.name !== "string" || !isRecord(args) || (progressToken !== undefined && !isId(progressToken))) return false;
    if ("task" in params && !this.#gw.transparent) return false; // a task's handle is renamed on the SDK path (tasks.ts)
    const plan = planToolCall(this.#gw, this.#gw.catalog, params.name, args);
    if (plan.kind !== "forward") return false;
    const id = `${ID_PREFIX}${++this.#next}`;
    // the server's progress comes back under the gateway id: client tokens of different calls may look alike upstream
    let meta: Record<string, unknown> | undefined = progressToken === undefined ? undefined : { ...(params._meta as object), progressToken: id };
    const envelope = plan.up.era === "modern" ? plan.up.modernMeta(session.capabilities, legacyClientsLevel(this.#gw)) : undefined;
    if (envelope) meta = { ...((meta ?? params._meta ?? {}) as object), ...envelope };
    const sentParams = meta === undefined ? { ...params, name: plan.tool } : { ...params, name: plan.tool, _meta: meta };
    const line = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: sentParams });
    if (!plan.up.sendRaw(line)) return false;
    const info = { method: "tools/call", tool: plan.tool, args };
    const sent = envelope ? { params: sentParams, modernClient: false, rounds: 0 } : undefined;
    const legacy = { exposed: params.name };
    const p: Pending = { id, session, clientId: m.id, progressToken, up: plan.up, started: Date.now(), info, deadline: 0, deadlines: undefined, prev: undefined, next: undefined, sent, legacy };
    this.#pending.set(id, p);
    this.#deadlinesOf(plan.up.server.timeouts.callMs).add(p);
    let ids = this.#byClientId.get(session);
    if (!ids) this.#byClientId.set(session, (ids = new Map()));
    ids.set(m.id, id);
    session.callStarted(plan.up);
    return true;
  }

  /**
   * A tools/call the SDK path took (a client without a raw channel, a 2026-07-28 client, a call after its approval),
   * its guards done: it goes to the server on this same route, and its answer comes back as the promise's. Undefined
   * when the server cannot take raw lines now (not running yet): the SDK Client then carries it.
   */
  call(session: ClientSession, up: Upstream, params: Record<string, unknown>, extra: Extra, info: CallInfo): Promise<Result> | undefined {
    const progressToken = isRecord(params._meta) ? params._meta.progressToken : undefined;
    if ((progressToken !== undefined && !isId(progressToken)) || extra.signal.aborted) return undefined;
    const id = `${ID_PREFIX}${++this.#next}`;
    const meta = progressToken === undefined ? {} : { _meta: { ...(params._meta as object), progressToken: id } };
    const sentParams = { ...params, ...meta };
    if (!up.sendRaw(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: sentParams }))) return undefined;
    const sent = up.era === "modern" ? { params: sentParams, modernClient: extra.modern !== undefined, rounds: 0 } : undefined;
    return new Promise<Result>((resolve, reject) => {
      const sink: Sink = {
        answered: (payload) => ("error" in payload ? reject(new RpcError(payload.error.code, payload.error.message, payload.error.data)) : resolve(payload.result as Result)),
        progress: (p) => extra.sendNotification({ method: "notifications/progress", params: p }).catch(() => {}),
        cancelled: (reason) => reject(new RpcError(ErrorCode.InternalError, reason)),
      };
      const legacy = extra.modern === undefined ? { exposed: undefined } : undefined;
      const p: Pending = { id, session, clientId: undefined, sink, progressToken, up, started: Date.now(), info, deadline: 0, deadlines: undefined, prev: undefined, next: undefined, detached: extra.detached, sent, legacy };
      this.#pending.set(id, p);
      this.#deadlinesOf(up.server.timeouts.callMs).add(p);
      session.callStarted(up);
      extra.signal.addEventListener("abort", () => this.#abort(id, "cancelled by the client"), { once: true });
    });
  }

  /** A call of the SDK path was given up on (the client cancelled, or left): the server is told, nobody is answered. */
  #abort(id: string, reason: string): void {
    const p = this.#pending.get(id);
    if (!p) return;
    this.#forget(id, p);
    p.up.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } }));
    this.#record(p, "cancelled", 0, reason);
    p.sink?.cancelled(reason);
  }

  /** A message from a server: true when the lane took it (an answer to or progress of one of its calls, a log message). */
  fromServer(up: Upstream, m: unknown): boolean {
    if (!isRecord(m)) return false;
    if (m.method === "notifications/progress") return this.#progress(up, m.params);
    if (m.method === "notifications/message" && isRecord(m.params)) {
      if (admitNotification(this.#gw, up)) broadcastLog(this.#gw, up, m.params);
      return true;
    }
    if (typeof m.id !== "string" || !m.id.startsWith(ID_PREFIX) || "method" in m) return false;
    const p = this.#pending.get(m.id);
    // answered after a timeout or a cancel: nobody waits for it; another server's call: a server answers only its own
    if (p?.up !== up) return true;
    if (p.sink && p.progressToken !== undefined && !p.deferred) {
      // a call of the SDK path with progress is answered a microtask later, as the SDK Client path did: a server may
      // write its last progress right after its answer (an SDK sends the notification a microtask late), in the same
      // chunk; it still reaches the client (a raw client gets the lines in the order the server wrote them)
      p.deferred = true;
      queueMicrotask(() => this.fromServer(up, m));
      return true;
    }
    if (isRecord(m.error)) {
      const reason = typeof m.error.message === "string" ? m.error.message : "error";
      const error = m.error as { code: number; message: string; data?: unknown };
      this.#answer(m.id, p, `"error":${JSON.stringify(m.error)}`, () => ({ error }), "error", 0, reason);
      return true;
    }
    if (p.sent && isInputRequired(m.result)) return this.#inputRequired(m.id, p, p.sent, m.result), true;
    // only data: icons on its resource links, as in the lists (icons.ts)
    const answer = withDataIconsIn((p.legacy && this.#forLegacyClient(p, p.legacy, m.result)) ?? m.result ?? {});
    const result = JSON.stringify(answer);
    const isError = isRecord(answer) && answer.isError === true;
    this.#answer(m.id, p, `"result":${result}`, () => ({ result: answer }), isError ? "error" : "ok", result);
    return true;
  }

  /**
   * A result for a 2025-11-25 client as the SDK's 2025 codec projects it (SEP-2106): undefined when it needs nothing,
   * which is the case of every result without structuredContent (no schema looked up, nothing copied).
   */
  #forLegacyClient(p: Pending, legacy: NonNullable<Pending["legacy"]>, result: unknown): Record<string, unknown> | undefined {
    if (!isRecord(result)) return undefined;
    return legacyToolResult(result, () => {
      const route = legacy.exposed === undefined ? undefined : this.#gw.catalog.toolRoutes.get(legacy.exposed);
      return (route?.server === p.up.name ? route.item : p.up.lists.tools.find((t) => t.name === p.info.tool))?.outputSchema;
    });
  }

  /**
   * A 2026-07-28 server asked for input in its answer (input-required.ts): a 2026-07-28 client gets the answer as it
   * is (its questions vetted); for a 2025-11-25 client the gateway asks the questions as real requests and sends the
   * call again with the answers, under a new id, the same call for the client, its timeout and audit line.
   */
  #inputRequired(id: string, p: Pending, sent: NonNullable<Pending["sent"]>, answer: InputRequired): void {
    const fail = (e: unknown) => {
      if (this.#pending.get(id) !== p) return; // cancelled, timed out or the server went down meanwhile
      const error = e instanceof ProtocolError ? e : new RpcError(ErrorCode.InternalError, e instanceof Error ? e.message : String(e));
      this.#answer(id, p, errorMember(error), () => ({ error: errorObject(error) }), "error", 0, error.message);
    };
    if (sent.modernClient) {
      let result: unknown;
      try {
        result = forModernClient(p.up, answer);
      } catch (e) {
        return fail(e);
      }
      const json = JSON.stringify(result);
      return this.#answer(id, p, `"result":${json}`, () => ({ result }), "ok", json);
    }
    if (sent.rounds >= MAX_ROUNDS) return fail(tooManyRounds(p.up));
    const asking = new AbortController();
    p.asking = asking;
    askForLegacyClient(p.session, p.up, answer, asking.signal).then((fields) => {
      if (this.#pending.get(id) !== p) return;
      const next = `${ID_PREFIX}${++this.#next}`;
      const params = { ...sent.params, ...fields };
      const meta = sent.params._meta as Record<string, unknown> | undefined;
      if (meta?.progressToken === id) params._meta = { ...meta, progressToken: next };
      p.sent = { params, modernClient: false, rounds: sent.rounds + 1 };
      p.asking = undefined;
      p.deferred = false;
      this.#pending.delete(id);
      this.#pending.set(next, p);
      p.id = next; // the call keeps its one deadline (and its place among the others), now under its new id
      if (p.clientId !== undefined) this.#byClientId.get(p.session)?.set(p.clientId, next);
      if (!p.up.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: next, method: "tools/call", params }))) {
        this.#answer(next, p, errorMember(closedError(p.up)), () => ({ error: errorObject(closedError(p.up)) }), "error", 0, closedError(p.up).message);
      }
    }, fail);
  }

  /**
   * Progress of one of the lane's calls goes to the client under its own token. Dropped after the answer, and when it
   * names a call to another server (gateway ids can be guessed; servers must not speak for each other).
   */
  #progress(up: Upstream, params: unknown): boolean {
    const token = isRecord(params) ? params.progressToken : undefined;
    if (typeof token !== "string" || !token.startsWith(ID_PREFIX)) return false;
    const p = this.#pending.get(token);
    if (p?.up === up && p.progressToken !== undefined && admitNotification(this.#gw, up)) {
      // written at once, so a server's notifications and answers reach the client in the order it wrote them
      const params2 = { ...(params as object), progressToken: p.progressToken };
      if (p.sink) p.progressSent = p.sink.progress(params2);
      else p.session.raw?.sendLine(JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: params2 }), true);
    }
    return true;
  }

  /** A client went away: its calls are cancelled at their servers and audited as such; nobody is answered. */
  sessionClosed(session: ClientSession): void {
    for (const [id, p] of this.#pending) {
      if (p.session !== session || p.detached) continue;
      this.#forget(id, p);
      p.up.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the client disconnected" } }));
      this.#record(p, "cancelled", 0, "the client disconnected");
      p.sink?.cancelled("the client disconnected");
    }
    this.#byClientId.delete(session);
  }

  /** The server's connection is gone: its calls fail now, as on the SDK path. */
  serverDown(up: Upstream, error: ProtocolError): void {
    for (const [id, p] of this.#pending) {
      if (p.up === up) this.#answer(id, p, errorMember(error), () => ({ error: errorObject(error) }), "error", 0, error.message);
    }
  }

  /** The deadlines of the calls with a timeouts.callMs of `ms` (in practice one or a few per gateway). */
  #deadlinesOf(ms: number): Deadlines {
    let d = this.#deadlines.get(ms);
    if (!d) this.#deadlines.set(ms, (d = new Deadlines(ms, (p) => this.#timeout(p.id, ms))));
    return d;
  }

  #timeout(id: string, ms: number): void {
    const p = this.#pending.get(id);
    if (!p) return;
    const reason = timeoutReason(p.up.name, p.info.tool ?? p.info.method, ms);
    p.up.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "timed out" } }));
    const timedOut = new RpcError(ErrorCode.RequestTimeout, reason);
    this.#answer(id, p, errorMember(timedOut), () => ({ error: errorObject(timedOut) }), "timeout", 0, reason);
  }

  /** The client gave up on a call: the server is told, nobody is answered (as the SDK does). */
  #cancel(session: ClientSession, params: unknown): boolean {
    const clientId = isRecord(params) ? params.requestId : undefined;
    const id = isId(clientId) ? this.#byClientId.get(session)?.get(clientId) : undefined;
    const p = id === undefined ? undefined : this.#pending.get(id);
    if (!p || id === undefined) return false;
    this.#forget(id, p);
    const reason = isRecord(params) && typeof params.reason === "string" ? params.reason : undefined;
    p.up.sendRaw(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, ...(reason ? { reason } : {}) } }));
    this.#record(p, "cancelled", 0, reason ?? "cancelled by the client");
    return true;
  }

  #forget(id: string, p: Pending): void {
    p.deadlines?.remove(p);
    p.asking?.abort();
    if (!this.#pending.delete(id)) return;
    p.session.callEnded(p.up);
    if (p.clientId === undefined) return;
    const ids = this.#byClientId.get(p.session);
    if (ids?.get(p.clientId) === id) ids.delete(p.clientId);
  }

  /**
   * Writes the client's answer first; the bookkeeping and the audit line are not on the call's critical path (nor the
   * byte count of a result, given as its JSON: counted after the write).
   */
  #answer(id: string, p: Pending, member: string, payload: () => Parameters<Sink["answered"]>[0], outcome: CallOutcome, bytes: number | string, reason?: string): void {
    if (p.sink) {
      const sink = p.sink;
      const value = payload();
      // after the last progress is out: the SDK forgets the progress handler of an answered request
      if (p.progressSent) void p.progressSent.then(() => sink.answered(value));
      else sink.answered(value);
    } else p.session.raw?.sendLine(`{"jsonrpc":"2.0","id":${JSON.stringify(p.clientId)},${member}}`);
    this.#forget(id, p);
    this.#record(p, outcome, typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes, reason);
  }

  #record(p: Pending, outcome: CallOutcome, bytes: number, reason?: string): void {
    record(this.#gw, p.up.name, p.info, outcome, Date.now() - p.started, bytes, reason);
  }
}

/**
 * The deadlines of calls that share one timeouts.callMs, behind one timer instead of a setTimeout and a clearTimeout
 * per call (each made and removed Node's timer list of that duration when calls came one at a time, issue 15). Each
 * deadline is its call's start plus the same ms, so a call added later never ends sooner: they form a FIFO, a list
 * through the calls themselves (a call answered leaves it at once, in O(1): nothing answered is kept). The timer is
 * armed for the first call; when it fires, every call whose deadline has passed ends, and it is armed again for the
 * first call left, if any. While no call waits the timer does not keep the process alive (unref), as no timer did.
 */
class Deadlines {
  readonly #ms: number;
  readonly #expire: (p: Pending) => void;
  #head: Pending | undefined;
  #tail: Pending | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(ms: number, expire: (p: Pending) => void) {
    this.#ms = ms;
    this.#expire = expire;
  }

  add(p: Pending): void {
    const now = performance.now();
    p.deadline = now + this.#ms;
    p.deadlines = this;
    p.prev = this.#tail;
    p.next = undefined;
    if (this.#tail) this.#tail.next = p;
    else this.#head = p;
    this.#tail = p;
    if (!this.#timer) this.#timer = setTimeout(this.#fire, this.#ms);
    else if (p === this.#head) {
      // the first call of an empty list: the timer armed for a call answered meanwhile fires no later than this one's
      // deadline (each deadline is a start plus the same ms), so it is only held alive again
      this.#timer.ref();
    }
  }

  remove(p: Pending): void {
    if (p.deadlines !== this) return;
    p.deadlines = undefined;
    if (p.prev) p.prev.next = p.next;
    else this.#head = p.next;
    if (p.next) p.next.prev = p.prev;
    else this.#tail = p.prev;
    p.prev = p.next = undefined;
    if (!this.#head) this.#timer?.unref();
  }

  #fire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    // each expiry may answer, cancel or record: the list is read again after each one
    for (let p = this.#head; p && p.deadline <= now; p = this.#head) {
      this.remove(p);
      this.#expire(p);
    }
    // a timer may fire a little before its deadline as performance.now() sees it (libuv's loop time is cached and in
    // whole ms): the rest is waited for, at least 1 ms
    if (this.#head && !this.#timer) this.#timer = setTimeout(this.#fire, Math.max(1, Math.ceil(this.#head.deadline - now)));
  };
}

const closedError = (up: Upstream) => new RpcError(ErrorCode.InternalError, `server ${up.name} is not available: its connection closed`);

function errorObject(e: ProtocolError): { code: number; message: string; data?: unknown } {
  return { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) };
}

function errorMember(e: ProtocolError): string {
  return `"error":${JSON.stringify(errorObject(e))}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is Id {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}
