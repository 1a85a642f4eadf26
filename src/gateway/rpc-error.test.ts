import { describe, expect, it } from "vitest";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/server";
import { ErrorCode, relayed, RpcError, wireMessage } from "./rpc-error.ts";

describe("gateway JSON-RPC errors", () => {
  it("carry their message without the SDK's prefix, so a client's own McpError shows it once", () => {
    const e = new RpcError(ErrorCode.InvalidParams, "unknown tool: a__b");
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.message).toBe("unknown tool: a__b");
    expect(new McpError(e.code, e.message).message).toBe("MCP error -32602: unknown tool: a__b");
  });
  it("pass on what the other side said, without the prefix the gateway's SDK Client added", () => {
    const fromServer = new McpError(ErrorCode.InvalidParams, "MCP error -32602: bad"); // an SDK server's words, as received
    const out = relayed(fromServer) as RpcError;
    expect(out.message).toBe("MCP error -32602: bad");
    expect(out.code).toBe(ErrorCode.InvalidParams);
    expect(wireMessage(new McpError(-32000, "plain"))).toBe("plain");
    // the SDK v2 adds no prefix: what the other side said goes on as it said it, even a prefix of its own
    const v2 = relayed(new ProtocolError(ErrorCode.InvalidParams, "MCP error -32602: its own words", { a: 1 })) as RpcError;
    expect([v2.code, v2.message, v2.data]).toEqual([ErrorCode.InvalidParams, "MCP error -32602: its own words", { a: 1 }]);
    // the SDK's own timeout and closed connection as the codes the other side knows
    const timeout = relayed(new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: 5 })) as RpcError;
    expect([timeout.code, timeout.message]).toEqual([-32001, "Request timed out"]);
    expect((relayed(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed")) as RpcError).code).toBe(-32000);
    const other = new Error("x");
    expect(relayed(other)).toBe(other);
  });
});
