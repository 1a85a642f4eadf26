/**
 * JSON-RPC errors as the gateway sends them: the SDK v2 ProtocolError, whose message is sent as it is (the v1
 * McpError wrote "MCP error <code>: " before it, so a client whose own error class adds the prefix showed it twice).
 */
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from "@modelcontextprotocol/server";

/** The JSON-RPC error codes the gateway answers with (-32001: a request timed out, as the SDKs and MCP clients know it). */
export const ErrorCode = {
  ParseError: ProtocolErrorCode.ParseError,
  InvalidRequest: ProtocolErrorCode.InvalidRequest,
  MethodNotFound: ProtocolErrorCode.MethodNotFound,
  InvalidParams: ProtocolErrorCode.InvalidParams,
  InternalError: ProtocolErrorCode.InternalError,
  RequestTimeout: -32001,
  ConnectionClosed: -32000,
} as const;

/** An error the gateway answers with: its code, its message as it is, its data. */
export class RpcError extends ProtocolError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.message = message;
  }
}

/** A JSON-RPC error as an SDK raised it (a numeric code: an SdkError's code is a string). */
export function isRpcShaped(e: unknown): e is Error & { code: number; data?: unknown } {
  return e instanceof Error && Number.isSafeInteger((e as { code?: unknown }).code);
}

/** The words a server (or the client) sent, without the prefix an SDK v1 Client or Server put before them. */
export function wireMessage(e: { code: number; message: string }): string {
  const prefix = `MCP error ${e.code}: `;
  return !(e instanceof RpcError) && e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

/**
 * An error passed on from the other side, as it was said there: the SDK v2 carries the other side's words as they
 * came; its own timeout and closed connection go on as the JSON-RPC codes MCP clients and servers know them (-32001,
 * -32000). Anything that is not a JSON-RPC error is kept.
 */
export function relayed(e: unknown): unknown {
  if (e instanceof RpcError) return e;
  if (e instanceof ProtocolError) return new RpcError(e.code, e.message, e.data);
  if (e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout) return new RpcError(ErrorCode.RequestTimeout, e.message, e.data);
  if (e instanceof SdkError && e.code === SdkErrorCode.ConnectionClosed) return new RpcError(ErrorCode.ConnectionClosed, e.message);
  if (isRpcShaped(e)) return new RpcError(e.code, wireMessage(e), e.data); // an SDK v1 McpError (its message has the prefix)
  return e;
}
