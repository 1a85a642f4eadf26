/**
 * The runner's MCP server on the wire, without an engine: what the gateway's upstream sees (the era probe, initialize,
 * tools/list) and the answers that need no container (an unknown tool, bad arguments). Pinned byte for byte: the code
 * runner reaches clients through the gateway as an upstream, and the SDK it is built on may not change what it says.
 */
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/resolve.ts";
import type { Docker } from "../docker/engine.ts";
import { VERSION } from "../version.ts";
import { inputSchema } from "./request.ts";
import { OUTPUT_SCHEMA } from "./result.ts";
import { createCodeRunnerServer } from "./server.ts";

const config = resolveConfig(
  { servers: { code: { builtin: "code-runner", languages: ["python", "bash"] } } } as never,
  "/tmp/runner-unit/sandbox.config.ts",
);
/** any use of the engine fails the test: none of these answers may start a container */
const noEngine = new Proxy({}, { get: (_t, p) => { throw new Error(`the engine was used (${String(p)})`); } }) as Docker;

async function wire() {
  const audit: Record<string, unknown>[] = [];
  const server = createCodeRunnerServer(config.servers[0]!, { docker: noEngine, session: "s", configHash: "h", ownerPid: 1, image: "img", audit: (e) => audit.push(e) });
  const [client, side] = InMemoryTransport.createLinkedPair();
  const lines: string[] = [];
  client.onmessage = (m) => lines.push(JSON.stringify(m));
  await server.connect(side);
  await client.start();
  const ask = async (message: Record<string, unknown>): Promise<string> => {
    const before = lines.length;
    await client.send({ jsonrpc: "2.0", ...message } as never);
    for (let i = 0; i < 100 && lines.length === before; i++) await new Promise((r) => setTimeout(r, 5));
    return lines.slice(before).join("\n");
  };
  return { server, client, audit, ask };
}

describe("the code runner's MCP server", () => {
  it("answers the era probe with method not found (a 2025-11-25 upstream), then initialize, tools/list and engine-free calls as pinned", async () => {
    const { server, client, audit, ask } = await wire();
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
    expect(await ask({ id: "p", method: "server/discover", params: { _meta: meta } })).toBe('{"jsonrpc":"2.0","id":"p","error":{"code":-32601,"message":"Method not found"}}');
    const init = JSON.parse(await ask({ id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }));
    expect(init).toEqual({ jsonrpc: "2.0", id: 0, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "mcpbox-code-runner", version: VERSION } } });
    await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const server0 = config.servers[0]!;
    const description =
      `Runs a python, bash program in a fresh, isolated container and returns its stdout, stderr and exit code. ` +
      `Limits: ${server0.timeouts.runMs} ms wall clock, ${server0.limits.memory} memory, network none, ` +
      `output cut at ${server0.maxOutputBytes} bytes per stream. Nothing persists between runs.`;
    const tool = { name: "run_code", title: "Run code", description, inputSchema: inputSchema(["python", "bash"]), outputSchema: OUTPUT_SCHEMA };
    // the SDK adds nothing (no resultType, no _meta) and keeps the order of the fields
    expect(await ask({ id: 1, method: "tools/list" })).toBe(`{"result":${JSON.stringify({ tools: [tool] })},"jsonrpc":"2.0","id":1}`);
    expect(await ask({ id: 2, method: "tools/call", params: { name: "nope", arguments: {} } })).toBe(
      '{"result":{"content":[{"type":"text","text":"unknown tool nope"}],"isError":true},"jsonrpc":"2.0","id":2}',
    );
    expect(await ask({ id: 3, method: "tools/call", params: { name: "run_code", arguments: { language: "cobol", code: "x" } } })).toBe(
      '{"result":{"content":[{"type":"text","text":"run_code: language must be one of python, bash"}],"isError":true},"jsonrpc":"2.0","id":3}',
    );
    expect(await ask({ id: 4, method: "tools/call", params: { name: "run_code" } })).toBe(
      '{"result":{"content":[{"type":"text","text":"run_code: arguments must be an object"}],"isError":true},"jsonrpc":"2.0","id":4}',
    );
    expect(await ask({ id: 5, method: "resources/list" })).toBe('{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}');
    expect(await ask({ id: 6, method: "ping" })).toBe('{"result":{},"jsonrpc":"2.0","id":6}');
    expect(audit).toEqual([
      { tool: "run_code", language: "cobol", code: "x", files: [], outcome: "error", error: "language must be one of python, bash" },
      { tool: "run_code", language: undefined, code: undefined, files: [], outcome: "error", error: "arguments must be an object" },
    ]);
    await server.close();
  });
});
