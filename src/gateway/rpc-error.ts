/**
 * JSON-RPC errors as the gateway sends them. The SDK's McpError writes "MCP error <code>: " before its message and
 * sends that whole message, so a client (whose own McpError adds the prefix again) showed it twice.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";

/** An McpError whose message, on the wire too, is just the message. */
export class RpcError extends McpError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.message = message;
  }
}

/** The words a server (or the client) sent, without the prefix the gateway's own SDK Client or Server put before them. */
export function wireMessage(e: McpError): string {
  const prefix = `MCP error ${e.code}: `;
  return !(e instanceof RpcError) && e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

/** An error passed on from the other side, as it was said there (anything that is not an McpError is kept). */
export function relayed(e: unknown): unknown {
  if (!(e instanceof McpError) || e instanceof RpcError) return e;
  return new RpcError(e.code, wireMessage(e), e.data);
}
