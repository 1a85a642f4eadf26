/**
 * What a server may ask of the client (SPEC 9): each kind allowed per server by `clientRequests`, and what is
 * forwarded names the server, so no server can pose as mcpbox or as another server. Pure.
 */
import { ErrorCode, type Request } from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedServer } from "../config/resolve.ts";
import { RpcError } from "./rpc-error.ts";

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
    params.message = `Server "${server.name}" asks: ${typeof params.message === "string" ? params.message : ""}`;
  } else if (kind === "sampling") {
    const own = typeof params.systemPrompt === "string" && params.systemPrompt !== "" ? `\n\n${params.systemPrompt}` : "";
    params.systemPrompt = `This request comes from the MCP server "${server.name}" (sandboxed by mcpbox), not from the user.${own}`;
    params.includeContext = "none"; // a server never gets the conversation, or other servers' context
  }
  return { method: request.method, params } as Request;
}
