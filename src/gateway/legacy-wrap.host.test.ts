/**
 * SEP-2106 across the gateway, with host processes (no Docker): a 2026-07-28 server (SDK v2) may give a tool a
 * non-object outputSchema root. The gateway's SDK server lists it to a 2025-11-25 client wrapped as
 * `{type:"object", properties:{result:<schema>}, required:["result"]}`; the tool's structuredContent must reach that
 * client wrapped the same way (`{result: value}`) on every route of tools/call (the raw route of a stdio client, the
 * SDK path of an approved call or of a client without a raw channel), or its SDK refuses the result. A 2026-07-28
 * client gets the server's result as it is.
 */
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioServerTransport as ModernStreamTransport } from "@modelcontextprotocol/server/stdio";
import type { ResolvedServer } from "../config/resolve.ts";
import type { Gateway } from "./gateway.ts";
import { hostGateway } from "./_host-gateway.ts";
import { BoundedStdioTransport } from "./stdio.ts";
import { testServer } from "./_test-server.ts";

/** A 2026-07-28 server (SDK v2, low-level Server: its results go as written) with non-object output schemas. */
const SERVER = `
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
const OBJECT = { type: "object" };
const tools = [
  { name: "numbers", inputSchema: OBJECT, outputSchema: { type: "array", items: { type: "number" } } },
  { name: "numbers-again", inputSchema: OBJECT, outputSchema: { type: "array", items: { type: "number" } } },
  { name: "count", inputSchema: OBJECT },
  { name: "point", inputSchema: OBJECT, outputSchema: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
];
serveStdio(() => {
  const server = new Server({ name: "wrap-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools }));
  server.setRequestHandler("tools/call", async (request) => {
    switch (request.params.name) {
      case "numbers":
      case "numbers-again":
        return { content: [{ type: "text", text: "[1,2]" }], structuredContent: [1, 2] };
      case "count":
        return { content: [], structuredContent: 3 };
      default:
        return { content: [{ type: "text", text: "x=1" }], structuredContent: { x: 1 } };
    }
  });
  return server;
});
`;

const gateways: Gateway[] = [];

function gateway(extra: Partial<ResolvedServer> = {}): Gateway {
  // its cwd is the repository's (vitest's): the SDK resolves from there
  const gw = hostGateway([testServer("wf", { prefix: null, ...extra })], () => ({ command: process.execPath, args: ["--input-type=module", "-e", SERVER] }));
  gateways.push(gw);
  return gw;
}

afterAll(async () => {
  await Promise.allSettled(gateways.map((g) => g.close()));
});

/** A 2025-11-25 client (SDK v1) over the gateway's own stdio transport: tools/call takes the raw route. */
async function stdioClient(gw: Gateway): Promise<Client> {
  const toGateway = new PassThrough();
  const fromGateway = new PassThrough();
  await gw.connect(new BoundedStdioTransport(toGateway, fromGateway));
  const client = new Client({ name: "legacy", version: "1" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { approve: true } }));
  await client.connect(new StdioServerTransport(fromGateway, toGateway)); // a line-framed stream transport, from the client side
  return client;
}

const WRAPPED = { type: "object", properties: { result: { type: "array", items: { type: "number" } } }, required: ["result"] };

describe("a 2025-11-25 client over stdio in front of a 2026-07-28 server with a non-object outputSchema", () => {
  let client: Client;

  beforeAll(async () => {
    client = await stdioClient(gateway({ approve: ["numbers-again"] }));
  });

  afterAll(async () => {
    await client?.close().catch(() => {});
  });

  it("is listed the schema wrapped in an object (the SDK server's 2025-11-25 encoding)", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "numbers")?.outputSchema).toEqual(WRAPPED);
    expect(tools.find((t) => t.name === "count")?.outputSchema).toBeUndefined();
  });

  it("gets the tool's structuredContent wrapped to match on the raw route; its SDK validates it against the listed schema", async () => {
    await client.listTools(); // the v1 Client validates structuredContent against the schemas it listed
    const r = await client.callTool({ name: "numbers", arguments: {} });
    expect(r.structuredContent).toEqual({ result: [1, 2] });
    expect(r.content).toEqual([{ type: "text", text: "[1,2]" }]);
  });

  it("gets a non-object value without a schema wrapped too, with a text block of its JSON", async () => {
    const r = await client.callTool({ name: "count", arguments: {} });
    expect(r.structuredContent).toEqual({ result: 3 });
    expect(r.content).toEqual([{ type: "text", text: "3" }]);
  });

  it("gets an object under an object schema as the server wrote it", async () => {
    await client.listTools();
    const r = await client.callTool({ name: "point", arguments: {} });
    expect(r.structuredContent).toEqual({ x: 1 });
    expect(r.content).toEqual([{ type: "text", text: "x=1" }]);
  });

  it("gets it wrapped on the SDK path too (an approved call)", async () => {
    await client.listTools();
    const r = await client.callTool({ name: "numbers-again", arguments: {} });
    expect(r.structuredContent).toEqual({ result: [1, 2] });
  });
});

describe("a 2025-11-25 client without a raw channel (the SDK path)", () => {
  it("gets the structuredContent wrapped to match the listed schema", async () => {
    const gw = gateway();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await gw.connect(a);
    const client = new Client({ name: "memory", version: "1" });
    await client.connect(b);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "numbers")?.outputSchema).toEqual(WRAPPED);
      expect((await client.callTool({ name: "numbers", arguments: {} })).structuredContent).toEqual({ result: [1, 2] });
    } finally {
      await client.close().catch(() => {});
    }
  });
});

describe("a 2026-07-28 client in front of it", () => {
  it("is listed the schema and gets the result as the server wrote them", async () => {
    const gw = gateway();
    const toGateway = new PassThrough();
    const fromGateway = new PassThrough();
    await gw.connect(new BoundedStdioTransport(toGateway, fromGateway));
    const client = new ModernClient({ name: "modern", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new ModernStreamTransport(fromGateway, toGateway));
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "numbers")?.outputSchema).toEqual({ type: "array", items: { type: "number" } });
      const r = await client.callTool({ name: "numbers", arguments: {} });
      expect(r.structuredContent).toEqual([1, 2]);
      const count = await client.callTool({ name: "count", arguments: {} });
      expect(count.structuredContent).toBe(3);
    } finally {
      await client.close().catch(() => {});
    }
  });
});

describe("a 2025-11-25 client whose call the SDK Client carries (the server takes no raw lines)", () => {
  it("gets the structuredContent wrapped to match the listed schema", async () => {
    const gw = gateway();
    const client = await stdioClient(gw);
    try {
      await client.listTools();
      const up = gw.upstream("wf");
      up.sendRaw = () => false;
      expect((await client.callTool({ name: "numbers", arguments: {} })).structuredContent).toEqual({ result: [1, 2] });
      expect((await client.callTool({ name: "count", arguments: {} })).content).toEqual([{ type: "text", text: "3" }]);
    } finally {
      await client.close().catch(() => {});
    }
  });
});
