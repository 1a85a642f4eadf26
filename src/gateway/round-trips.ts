/**
 * Multi round-trip requests (SPEC 4.8, 9) between a 2025-11-25 server and a 2026-07-28 client. The server asks the
 * client things mid-call (elicitation, sampling, roots) as real requests; a modern client has no such channel. So the
 * gateway parks the server's call: the client's request is answered `input_required` with the server's requests
 * embedded and a `requestState` naming the parked call; the client's retry carries the answers, which go back to the
 * server as its requests' results, and the retry waits on the same call (its result, or the next question).
 *
 * `requestState` is a random token known only to the gateway and this one client's session: a retry from another
 * client, or a forged or stale token, finds nothing.
 */
import { randomBytes } from "node:crypto";
import type { ClientCapabilities, LoggingLevel, Notification, Request, Result } from "@modelcontextprotocol/server";
import { ErrorCode, RpcError } from "./rpc-error.ts";
import type { ClientSession } from "./session.ts";
import type { Upstream } from "./upstream.ts";

/** A question a server asked during a modern client's call, waiting for the client's answer. */
interface Ask {
  key: string;
  request: Request;
  resolve(result: Result): void;
  reject(e: Error): void;
}

/** At most this long a parked call waits for the client's retry once its server has answered or asked. */
export const PARK_MS = 10 * 60_000;

const PARKED_PREFIX = "mcpbox-rt-";
/**
 * At most this many round trips wait for a retry at once, all clients together: a client that starts calls (or
 * approvals) and never comes back would otherwise grow memory for PARK_MS each. Over it, the oldest round trip of the
 * clients that hold the most gives way: a client holding fewer than another never loses one, and one holding as many
 * as the most loses its oldest only if it is the oldest of theirs. A client is known by what it declares (clientKey):
 * one that floods under one name loses its own; one that changes its name per request holds 1 per name, so an honest
 * client holding more loses down to 1, and its last only once MAX_PARKED newer round trips wait; one that copies
 * another's name shares that client's MAX_PARKED_PER_CLIENT.
 */
export const MAX_PARKED = 256;
/** At most this many round trips of one client wait for its retry at once; its own oldest gives way to its new one. */
export const MAX_PARKED_PER_CLIENT = 32;

/**
 * Who a bound counts against: a long-lived connection (stdio, a 2025-11-25 HTTP session) is its session; a
 * 2026-07-28 client over HTTP, whose every request is a session of its own, is known only by the clientInfo its
 * requests carry (two clients that send the same share one bound). Self-declared, so a hostile client can change it
 * per request or copy another's: nothing better is at hand. All HTTP clients share one bearer token; 2026-07-28 has no
 * Mcp-Session-Id; a connection (remote port) is no identity either, as a retry may come on a new connection (keep-alive
 * 5 s, an answer a person gives takes longer) and a flooder may open many. See RoundTrips.park for what holds.
 */
export function clientKey(session: ClientSession | undefined): unknown {
  if (session === undefined) return "client:unknown";
  if (!session.perRequest) return session;
  const info = session.clientInfo;
  return `client:${JSON.stringify([info?.name ?? "", info?.version ?? ""])}`;
}

/** How long after a server's first question the gateway waits for the others it asks with it, before answering. */
export const ASK_GATHER_MS = 20;

/** One modern client's call to one server, across the client's retries. */
export class CallState {
  readonly up: Upstream;
  /** the client the call counts against (clientKey), across its retries */
  readonly client: unknown;
  readonly controller = new AbortController();
  readonly startedAt = Date.now();
  logLevel: LoggingLevel | undefined;
  capabilities: ClientCapabilities | undefined;
  /** the client request waiting on this call now (undefined while parked between a client's retries) */
  waiter: ClientSession | undefined;
  /** the server's answer, once started */
  result: Promise<Result> | undefined;
  /** notifications of the call (progress) to the client request waiting on it now */
  sendNotification: ((n: Notification) => Promise<void>) | undefined;
  #asked: Ask[] = [];
  #outstanding: Ask[] = [];
  #wake: (() => void) | undefined;
  #next = 0;
  #refused: Error | undefined;

  constructor(up: Upstream, waiter: ClientSession) {
    this.up = up;
    this.waiter = waiter;
    this.client = clientKey(waiter);
  }

  /** The server asks the client something: answered when the client's retry brings it. */
  ask(request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#asked.push({ key: `q${++this.#next}`, request, resolve, reject });
      this.#wake?.();
    });
  }

  /**
   * The call cannot go on for this client (the server asked for a capability it did not declare): the client's
   * request is answered `error`, not the server's result.
   */
  refuse(error: Error): void {
    this.#refused ??= error;
    this.#wake?.();
  }

  /** Whether the server asked this client anything during the call yet. */
  get hasAsked(): boolean {
    return this.#next > 0;
  }

  /** The server's answer, or the questions it asked meanwhile (taken: they now wait for the client's answers). */
  async next(): Promise<{ result: Result } | { asks: { key: string; request: Request }[] }> {
    const result = this.result!;
    for (;;) {
      if (this.#refused) throw this.#refused;
      if (this.#asked.length > 0) {
        this.#outstanding.push(...this.#asked);
        this.#asked = [];
        return { asks: this.#outstanding.map((a) => ({ key: a.key, request: a.request })) };
      }
      const asked = new Promise<"asked">((resolve) => (this.#wake = () => resolve("asked")));
      if (this.#refused) continue;
      const settled = await Promise.race([result.then(() => "done" as const, () => "done" as const), asked]);
      this.#wake = undefined;
      if (settled === "done") return { result: await result };
      // a server asks a round's questions at once (the SDK's legacy shim sends them together): gather them into one
      await new Promise((resolve) => setTimeout(resolve, ASK_GATHER_MS));
    }
  }

  /** The client's answers to the outstanding questions, by key; a question it left unanswered fails at the server. */
  answer(responses: Record<string, unknown> | undefined, translate: (ask: Request, response: Result) => Result): void {
    const outstanding = this.#outstanding;
    this.#outstanding = [];
    for (const a of outstanding) {
      const response = responses?.[a.key];
      if (response && typeof response === "object") a.resolve(translate(a.request, response as Result));
      else a.reject(new RpcError(ErrorCode.InvalidRequest, `the client did not answer ${a.request.method}`));
    }
  }

  abort(why: string): void {
    for (const a of [...this.#asked, ...this.#outstanding]) a.reject(new RpcError(ErrorCode.InvalidRequest, why));
    this.#asked = [];
    this.#outstanding = [];
    this.controller.abort(new Error(why));
  }
}

interface Parked {
  value: { abort(why: string): void };
  /** a long-lived connection (stdio) whose end ends what it parked; none for a per-request one (HTTP) */
  owner: ClientSession | undefined;
  /** who it counts against (clientKey) */
  client: unknown;
  timer: NodeJS.Timeout;
}

/**
 * The gateway's round trips in flight, shared by every session: a 2026-07-28 client over HTTP may send each retry
 * as a request of its own (a session of its own), so what it continues lives here, under its token.
 */
export class RoundTrips {
  readonly #parked = new Map<string, Parked>();
  /** clientKey → how many of #parked are its */
  readonly #count = new Map<unknown, number>();
  readonly #calls = new Map<Upstream, CallState[]>();

  /**
   * The modern call to `up` a server's request belongs to (a 2025-11-25 server's request names none): the oldest
   * one a client request waits on now, else the oldest in flight. A call parked for its client's retry has asked
   * already and waits for answers; a call another client left parked must not take a newer call's questions.
   */
  callFor(up: Upstream): CallState | undefined {
    const calls = this.#calls.get(up);
    return calls?.find((c) => c.waiter !== undefined) ?? calls?.[0];
  }

  callsTo(up: Upstream): readonly CallState[] {
    return this.#calls.get(up) ?? [];
  }

  track(state: CallState): void {
    let list = this.#calls.get(state.up);
    if (!list) this.#calls.set(state.up, (list = []));
    list.push(state);
  }

  untrack(state: CallState): void {
    const list = this.#calls.get(state.up);
    if (!list) return;
    const i = list.indexOf(state);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.#calls.delete(state.up);
  }

  /**
   * Parks `value` for the retry of `session`'s client; the token names it (random: only the client it was given to
   * knows it). What a long-lived session parks ends with it; what a per-request one parks outlives it.
   */
  park(session: ClientSession | undefined, value: { abort(why: string): void }): string {
    const token = PARKED_PREFIX + randomBytes(16).toString("base64url");
    const timer = setTimeout(() => {
      if (this.#parked.get(token)?.value !== value) return;
      this.#drop(token);
      value.abort("the client did not come back for this call in time");
    }, PARK_MS);
    timer.unref();
    const client = clientKey(session);
    this.#parked.set(token, { value, owner: session?.perRequest ? undefined : session, client, timer });
    this.#count.set(client, (this.#count.get(client) ?? 0) + 1);
    if (this.#count.get(client)! > MAX_PARKED_PER_CLIENT) {
      this.#giveWay(client, `more than ${MAX_PARKED_PER_CLIENT} round trips of this client waited for its retry: its oldest gave way`);
    }
    while (this.#parked.size > MAX_PARKED) this.#giveWayAtCeiling();
    return token;
  }

  /** How many round trips of `session`'s client wait for its retry (tests, the monitor). */
  parkedBy(session: ClientSession | undefined): number {
    return this.#count.get(clientKey(session)) ?? 0;
  }

  /** The oldest round trip `client` parked is aborted. */
  #giveWay(client: unknown, why: string): void {
    for (const [token, p] of this.#parked) {
      if (p.client !== client) continue;
      this.#drop(token);
      p.value.abort(why);
      return;
    }
  }

  /**
   * Over the ceiling: the oldest round trip of all those whose clients hold the most (a tie between clients is broken
   * by the age of the round trip, not of the client), so a client holding fewer than another never gives way.
   */
  #giveWayAtCeiling(): void {
    let most = 0;
    for (const n of this.#count.values()) if (n > most) most = n;
    for (const [token, p] of this.#parked) {
      if (this.#count.get(p.client) !== most) continue;
      this.#drop(token);
      p.value.abort(`more than ${MAX_PARKED} round trips waited for their client's retry: the oldest of the clients holding the most gave way`);
      return;
    }
  }

  #drop(token: string): Parked | undefined {
    const p = this.#parked.get(token);
    if (!p) return undefined;
    clearTimeout(p.timer);
    this.#parked.delete(token);
    const n = (this.#count.get(p.client) ?? 1) - 1;
    if (n > 0) this.#count.set(p.client, n);
    else this.#count.delete(p.client);
    return p;
  }

  peek(token: unknown): unknown {
    return typeof token === "string" ? this.#parked.get(token)?.value : undefined;
  }

  /** What a retry's requestState names, taken (a token serves one retry). */
  unpark<T>(token: unknown, is: (v: unknown) => v is T): T {
    const parked = typeof token === "string" ? this.#parked.get(token) : undefined;
    if (parked === undefined || !is(parked.value)) throw new RpcError(ErrorCode.InvalidParams, "Invalid or expired requestState");
    this.#drop(token as string);
    return parked.value;
  }

  /** A client went away: what it parked, and the calls its requests wait on, end with it. */
  sessionClosed(session: ClientSession): void {
    for (const [token, p] of this.#parked) {
      if (p.owner !== session) continue;
      this.#drop(token);
      p.value.abort("the client disconnected");
    }
    for (const list of this.#calls.values()) for (const c of [...list]) if (c.waiter === session) c.abort("the client disconnected");
  }
}
