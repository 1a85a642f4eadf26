/**
 * What a server may ask of the client (SPEC 9): each kind allowed per server by `clientRequests`, and what is
 * forwarded names the server, so no server can pose as mcpbox or as another server; and how many may wait on the
 * clients at once. Pure.
 */
import type { Request } from "@modelcontextprotocol/server";
import type { ResolvedServer } from "../config/resolve.ts";
import { terminalText } from "../text/terminal.ts";
import { CAPS, capMessage } from "./limits.ts";
import { ErrorCode, RpcError } from "./rpc-error.ts";

const KINDS = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
} as const;

export type ClientRequestKind = (typeof KINDS)[keyof typeof KINDS];

/** The kind of a server-to-client request, or undefined for a method mcpbox does not pass on. */
export const requestKind = (method: string): ClientRequestKind | undefined => (KINDS as Record<string, ClientRequestKind>)[method];

/** The request as the client gets it, or an error that names the key to set. */
export function vetClientRequest(server: ResolvedServer, request: Request): Request {
  const kind = requestKind(request.method);
  if (kind === undefined) {
    throw new RpcError(ErrorCode.MethodNotFound, `mcpbox does not pass ${request.method} from server ${server.name} on to the client`);
  }
  if (!server.clientRequests[kind]) {
    throw new RpcError(
      ErrorCode.InvalidRequest,
      `mcpbox refused ${request.method} from server ${server.name}: ${kind} is not allowed for it ` +
        `(set servers.${server.name}.clientRequests.${kind}: true to allow it)`,
    );
  }
  const params = { ...(request.params ?? {}) } as Record<string, unknown>;
  if (kind === "elicitation") {
    // the server's words as a quote: controls and bidi overrides shown as escapes, and each line after its first
    // marked "> ", so no line of it reads as mcpbox's own (an approval prompt is "mcpbox: allow server ...?"; hrev)
    const [first, ...more] = terminalText(typeof params.message === "string" ? params.message : "").split("\n");
    params.message = `Server "${server.name}" asks: ${first}${more.map((line) => `\n> ${line}`).join("")}`;
  } else if (kind === "sampling") {
    const own = typeof params.systemPrompt === "string" && params.systemPrompt !== "" ? `\n\n${params.systemPrompt}` : "";
    params.systemPrompt = `This request comes from the MCP server "${server.name}" (sandboxed by mcpbox), not from the user.${own}`;
    params.includeContext = "none"; // a server never gets the conversation, or other servers' context
  }
  return { method: request.method, params } as Request;
}

/** Requests one server may have waiting on one client at once (CAPS.pendingClientRequests), */
export const PENDING_PER_CLIENT = CAPS.pendingClientRequests;
/** and on all its clients together: a client that never answers fills its own bound, never another's. */
export const PENDING_PER_SERVER = 4 * CAPS.pendingClientRequests;

/**
 * The server requests waiting on clients now, per server and per client (who is a client: round-trips.ts
 * clientKey). `take` either counts one more (give it back with the release) or says why not.
 *
 * A 2026-07-28 HTTP client is its self-declared clientInfo there: one that copies another's shares its
 * PENDING_PER_CLIENT; one that changes it per request can fill a server's PENDING_PER_SERVER, and that server's next
 * questions to any client are refused until the flooder's give way. Its questions ride its parked round trips, so they
 * are released when those are (answered, MAX_PARKED in round-trips.ts, PARK_MS). Here a question that waits is never
 * taken away: only new ones are refused.
 */
export class PendingRequests<S = unknown> {
  readonly #servers = new Map<S, { total: number; clients: Map<unknown, number>; capped: boolean }>();

  take(server: S, serverName: string, client: unknown): { release: () => void } | { refused: string; first: boolean } {
    let s = this.#servers.get(server);
    if (!s) this.#servers.set(server, (s = { total: 0, clients: new Map(), capped: false }));
    const mine = s.clients.get(client) ?? 0;
    const refused =
      mine >= PENDING_PER_CLIENT ? capMessage.pending(serverName) : s.total >= PENDING_PER_SERVER ? pendingAll(serverName) : undefined;
    if (refused !== undefined) {
      const first = !s.capped; // said once per burst
      s.capped = true;
      return { refused, first };
    }
    s.total++;
    s.clients.set(client, mine + 1);
    let released = false;
    const state = s;
    return {
      release: () => {
        if (released) return;
        released = true;
        state.total--;
        const n = (state.clients.get(client) ?? 1) - 1;
        if (n > 0) state.clients.set(client, n);
        else state.clients.delete(client);
        if (state.total === 0) this.#servers.delete(server);
      },
    };
  }

  /** What waits on `client` from `server` now (tests). */
  count(server: S, client?: unknown): number {
    const s = this.#servers.get(server);
    return client === undefined ? (s?.total ?? 0) : (s?.clients.get(client) ?? 0);
  }
}

const pendingAll = (server: string) =>
  `server ${server} already has ${PENDING_PER_SERVER} requests pending at its clients together (mcpbox's cap); this one is refused`;
