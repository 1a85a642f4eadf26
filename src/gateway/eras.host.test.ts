/**
 * The two protocol eras across the gateway (SPEC 4.8), with host processes (no Docker): a 2025-11-25 client in front
 * of a 2026-07-28 server (test/fixtures/modern, SDK v2, whose input_required tools reach the client as real requests),
 * and a 2026-07-28 client in front of it (trace context passed on, cacheable lists).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Client as ModernClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { StdioServerTransport as ModernStreamTransport } from "@modelcontextprotocol/server/stdio";
import type { ResolvedServer } from "../config/resolve.ts";
import type { Gateway } from "./gateway.ts";
import { hostGateway } from "./_host-gateway.ts";
import { BoundedStdioTransport } from "./stdio.ts";
import { testServer } from "./_test-server.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const NODE = path.join(REPO, "node_modules/.bin/node"); // the project's Node (runs TypeScript as it is)
const FIXTURE = path.join(REPO, "test/fixtures/modern/server.ts");

let home: string;
const gateways: Gateway[] = [];

function gateway(servers: ResolvedServer[]): Gateway {
  const gw = hostGateway(servers, () => ({ command: NODE, args: [FIXTURE] }));
  gateways.push(gw);
  return gw;
}

beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-gw-eras-"));
});

afterAll(async () => {
  await Promise.allSettled(gateways.map((g) => g.close()));
  fs.rmSync(home, { recursive: true, force: true });
});

const textOf = (r: unknown) => JSON.stringify((r as { content?: unknown }).content ?? "");

describe("a 2025-11-25 client in front of a 2026-07-28 server (prefix: false)", () => {
  let client: Client;
  const logs: { logger?: string; data?: unknown }[] = [];
  let listChanged = 0;
  const updated: string[] = [];

  beforeAll(async () => {
    const gw = gateway([testServer("mf", { prefix: null, mounts: [{ source: home, target: "/data", readOnly: true }] })]);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await gw.connect(a);
    client = new Client({ name: "legacy", version: "1" }, { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Ann" } }));
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: "forty-two" }, model: "m" }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file://${home}/sub`, name: "sub" }, { uri: "file:///etc", name: "etc" }] }));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await client.connect(b);
  });

  it("shows the server's own serverInfo", () => {
    expect(client.getServerVersion()).toMatchObject({ name: "modern-fixture", version: "1.0.0" });
  });

  it("speaks 2026-07-28 to the server (probed), telling it what this client can do within the policy", async () => {
    const said = JSON.parse(JSON.parse(textOf(await client.callTool({ name: "era", arguments: {} })))[0].text) as { revision: string; capabilities: Record<string, unknown> };
    expect(said.revision).toBe("2026-07-28");
    expect(Object.keys(said.capabilities).sort()).toEqual(["elicitation", "roots", "sampling"]);
  });

  it("passes the server's input_required questions to the client as real requests, and the answers back", async () => {
    expect(textOf(await client.callTool({ name: "ask-name", arguments: {} }))).toContain("hello Ann");
    expect(textOf(await client.callTool({ name: "sample", arguments: {} }))).toContain("the model said forty-two");
  });

  it("translates the client's roots on the way (SPEC 4.1)", async () => {
    const text = textOf(await client.callTool({ name: "roots", arguments: {} }));
    expect(text).toContain("file:///data/sub");
    expect(text).not.toContain("/etc");
    expect(text).not.toContain(home);
  });

  it("keeps the server's logger name and its JSON Schema 2020-12 input schema as written", async () => {
    await client.callTool({ name: "log", arguments: {} });
    for (let i = 0; i < 50 && logs.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(logs).toContainEqual(expect.objectContaining({ logger: "fixture-logger", data: "a message from the fixture" }));
    const greet = (await client.listTools()).tools.find((t) => t.name === "greet")!;
    expect(greet.inputSchema).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { name: { type: "string", minLength: 1 } },
      properties: { who: { $ref: "#/$defs/name" } },
      additionalProperties: false,
    });
  });

  it("subscribes it to a resource on the gateway's listen stream (no resources/subscribe in 2026-07-28), and back", async () => {
    await client.subscribeResource({ uri: "note://fixture" });
    await client.callTool({ name: "touch-note", arguments: {} });
    for (let i = 0; i < 100 && updated.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(updated).toEqual(["note://fixture"]);
    await client.unsubscribeResource({ uri: "note://fixture" });
    await client.callTool({ name: "touch-note", arguments: {} });
    await new Promise((r) => setTimeout(r, 300));
    expect(updated).toEqual(["note://fixture"]);
  });

  it("tells the client when the server's tools change", async () => {
    await client.callTool({ name: "add-tool", arguments: {} });
    for (let i = 0; i < 100 && listChanged === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(listChanged).toBeGreaterThan(0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("added-1");
  });
});

describe("a 2026-07-28 client in front of it", () => {
  let client: ModernClient;
  let wire: string[] = [];
  let toolsChanged = 0;
  let toGateway: PassThrough;
  let gw: Gateway;

  beforeAll(async () => {
    gw = gateway([testServer("mf", { prefix: null })]);
    toGateway = new PassThrough();
    const fromGateway = new PassThrough();
    fromGateway.on("data", (d: Buffer) => void wire.push(...String(d).split("\n").filter(Boolean)));
    await gw.connect(new BoundedStdioTransport(toGateway, fromGateway));
    client = new ModernClient(
      { name: "modern", version: "1" },
      {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
        capabilities: { elicitation: { form: {} } },
        listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void toolsChanged++ } },
      },
    );
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept" as const, content: { name: "Bo" } }));
    await client.connect(new ModernStreamTransport(fromGateway, toGateway));
  });

  afterAll(async () => {
    await client?.close().catch(() => {});
  });

  it("passes traceparent, tracestate and baggage on to the server in _meta", async () => {
    const trace = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "vendor=x", baggage: "k=v" };
    const r = await client.callTool({ name: "meta", arguments: {}, _meta: trace });
    expect(JSON.parse(JSON.parse(textOf(r))[0].text)).toMatchObject(trace);
  });

  it("answers lists with the servers' cache hints and every result with resultType", async () => {
    wire = [];
    await client.listTools();
    const answer = wire.map((l) => JSON.parse(l) as { result?: Record<string, unknown> }).find((m) => Array.isArray(m.result?.tools));
    expect(answer?.result).toMatchObject({ ttlMs: 60_000, cacheScope: "public", resultType: "complete" });
  });

  it("hears of changed lists on its subscriptions/listen stream, not as unsolicited notifications", async () => {
    for (let i = 0; i < 100 && !wire.some((l) => l.includes("notifications/subscriptions/acknowledged")); i++) await new Promise((r) => setTimeout(r, 20));
    wire = [];
    await client.callTool({ name: "add-tool", arguments: {} });
    for (let i = 0; i < 100 && toolsChanged === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(toolsChanged).toBeGreaterThan(0);
    const change = wire.map((l) => JSON.parse(l) as { method?: string; params?: { _meta?: Record<string, unknown> } }).find((m) => m.method === "notifications/tools/list_changed");
    expect(change?.params?._meta).toHaveProperty(["io.modelcontextprotocol/subscriptionId"]); // on the listen stream
  });

  it("gets a server's log messages only for a request that asked for them, at its level (no logging/setLevel)", async () => {
    wire = [];
    await client.callTool({ name: "log", arguments: {} });
    await new Promise((r) => setTimeout(r, 200));
    expect(wire.some((l) => l.includes("notifications/message"))).toBe(false);
    await client.callTool({ name: "log", arguments: {}, _meta: { "io.modelcontextprotocol/logLevel": "info" } });
    for (let i = 0; i < 50 && !wire.some((l) => l.includes("notifications/message")); i++) await new Promise((r) => setTimeout(r, 20));
    expect(wire.some((l) => l.includes("a message from the fixture"))).toBe(true);
  });

  it("refuses a request without the envelope (-32602) and stays in its era", async () => {
    wire = [];
    toGateway.write(`${JSON.stringify({ jsonrpc: "2.0", id: "bare", method: "tools/list", params: {} })}\n`);
    for (let i = 0; i < 50 && !wire.some((l) => l.includes('"bare"')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(JSON.parse(wire.find((l) => l.includes('"bare"'))!)).toMatchObject({ id: "bare", error: { code: -32602 } });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("gets a 2026-07-28 server's questions in round trips too", async () => {
    expect(textOf(await client.callTool({ name: "ask-name", arguments: {} }))).toContain("hello Bo");
  });

  it("tells the server what this client declared (elicitation only), not what the policy would allow", async () => {
    const said = JSON.parse(JSON.parse(textOf(await client.callTool({ name: "era", arguments: {} })))[0].text) as { revision: string; capabilities: Record<string, unknown> };
    expect(said).toMatchObject({ revision: "2026-07-28" });
    expect(Object.keys(said.capabilities)).toEqual(["elicitation"]);
  });

  it("has the resources its listen stream names subscribed at their server while the stream is open, as over HTTP", async () => {
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (n) => void updated.push(n.params.uri));
    const atServer = () => [...gw.upstreams.get("mf")!.subscriptions];
    expect(atServer()).toEqual([]);
    const sub = await client.listen({ resourceSubscriptions: ["note://fixture"] });
    expect(sub.honoredFilter).toMatchObject({ resourceSubscriptions: ["note://fixture"] });
    for (let i = 0; i < 100 && atServer().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(atServer()).toEqual(["note://fixture"]);
    // the server sends updates of a resource to its subscribers only: this one reaches the client's listen stream
    await client.callTool({ name: "touch-note", arguments: {} });
    for (let i = 0; i < 100 && updated.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(updated).toEqual(["note://fixture"]);
    const update = wire.map((l) => JSON.parse(l) as { method?: string; params?: { _meta?: Record<string, unknown> } }).find((m) => m.method === "notifications/resources/updated");
    expect(update?.params?._meta).toHaveProperty(["io.modelcontextprotocol/subscriptionId"]); // on the listen stream, once
    expect(wire.filter((l) => l.includes("notifications/resources/updated"))).toHaveLength(1);
    // the stream closed: the server is told the gateway no longer wants the resource
    await sub.close();
    for (let i = 0; i < 100 && atServer().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(atServer()).toEqual([]);
  });
});

describe("a 2026-07-28 client, an approved tool whose 2026-07-28 server asks for more", () => {
  it("asks the person once; the server's own round trip then goes on with the approved arguments", async () => {
    const gw = gateway([testServer("mf", { prefix: null, approve: ["ask-name"] })]);
    const toGateway = new PassThrough();
    const fromGateway = new PassThrough();
    await gw.connect(new BoundedStdioTransport(toGateway, fromGateway));
    const client = new ModernClient({ name: "modern", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      const message = String((request.params as { message?: unknown }).message);
      asked.push(message);
      const content: Record<string, string | boolean> = message.startsWith("mcpbox: allow") ? { approve: true } : { name: "Cy" };
      return { action: "accept" as const, content };
    });
    await client.connect(new ModernStreamTransport(fromGateway, toGateway));
    try {
      expect(textOf(await client.callTool({ name: "ask-name", arguments: {} }))).toContain("hello Cy");
      expect(asked.filter((m) => m.startsWith("mcpbox: allow"))).toHaveLength(1);
      expect(asked.filter((m) => m.includes("What is your name?"))).toHaveLength(1);
    } finally {
      await client.close().catch(() => {});
    }
  });
});

describe("a 2026-07-28 client over the SDK's per-request HTTP entry (every request a session of its own)", () => {
  it("continues a server's round trip in the retry's own request, and lets no session pile up", async () => {
    const gw = gateway([testServer("mf", { prefix: null })]);
    const handler = createMcpHandler(() => gw.modernServer(), { legacy: "reject" });
    const client = new ModernClient({ name: "http", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept" as const, content: { name: "Di" } }));
    await client.connect(new StreamableHTTPClientTransport(new URL("http://gateway.test/mcp"), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
    expect(textOf(await client.callTool({ name: "ask-name", arguments: {} }))).toContain("hello Di");
    expect(textOf(await client.callTool({ name: "meta", arguments: {} }))).toContain("{");
    await client.close();
    await handler.close();
    for (let i = 0; i < 50 && gw.sessions.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(gw.sessions.size).toBe(0);
  });

  // raw 2026-07-28 requests, to see HTTP statuses and to leave a round trip unfinished as a client may
  const envelope = (capabilities: Record<string, unknown>) => ({
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  });
  let rawId = 0;
  async function post(handler: { fetch(r: Request): Promise<Response> }, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) {
    const name = typeof params.name === "string" ? { "Mcp-Name": params.name } : {};
    const response = await handler.fetch(
      new Request("http://gateway.test/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "Mcp-Method": method, ...name },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++rawId, method, params: { ...params, _meta: envelope(capabilities) } }),
      }),
    );
    const body = await response.text();
    const line = body.split("\n").reverse().find((l) => l.startsWith("data:"));
    return { status: response.status, message: JSON.parse(line ? line.slice(5) : body) as { result?: Record<string, unknown>; error?: { code: number; data?: unknown } } };
  }

  it("keeps a running server's call when the request that started the round trip ends, for the retry to finish", async () => {
    const gw = gateway([testServer("mf", { prefix: null })]);
    const handler = createMcpHandler(() => gw.modernServer(), { legacy: "reject" });
    try {
      // the server is running (its calls take the raw route): the first request's session closes after input_required
      expect(JSON.stringify((await post(handler, "tools/call", { name: "meta", arguments: {} })).message.result)).toContain("content");
      const first = await post(handler, "tools/call", { name: "ask-name", arguments: {} }, { elicitation: { form: {} } });
      expect(first.message.result?.resultType).toBe("input_required");
      const [key] = Object.keys(first.message.result!.inputRequests as object);
      await new Promise((r) => setTimeout(r, 300)); // the person takes a moment; the first request's session has ended
      const retry = await post(
        handler,
        "tools/call",
        { name: "ask-name", arguments: {}, requestState: first.message.result!.requestState, inputResponses: { [key!]: { action: "accept", content: { name: "Cy" } } } },
        { elicitation: { form: {} } },
      );
      expect(JSON.stringify(retry.message)).toContain("hello Cy");
    } finally {
      await handler.close();
    }
  });

  it("asks a round's questions together, in one input_required, as the server asked them", async () => {
    const gw = gateway([testServer("mf", { prefix: null })]);
    const handler = createMcpHandler(() => gw.modernServer(), { legacy: "reject" });
    try {
      const caps = { elicitation: { form: {} }, sampling: {} };
      const first = await post(handler, "tools/call", { name: "ask-both", arguments: {} }, caps);
      expect(first.message.result?.resultType).toBe("input_required");
      const asks = first.message.result!.inputRequests as Record<string, { method: string }>;
      expect(Object.values(asks).map((a) => a.method).sort()).toEqual(["elicitation/create", "sampling/createMessage"]);
      const responses = Object.fromEntries(
        Object.entries(asks).map(([k, a]) => [
          k,
          a.method === "elicitation/create" ? { action: "accept", content: { name: "Flo" } } : { role: "assistant", content: { type: "text", text: "hey" }, model: "m" },
        ]),
      );
      const retry = await post(handler, "tools/call", { name: "ask-both", arguments: {}, requestState: first.message.result!.requestState, inputResponses: responses }, caps);
      expect(JSON.stringify(retry.message)).toContain("hello Flo, the model said hey");
    } finally {
      await handler.close();
    }
  });

  it("answers -32021 with HTTP 400 naming the capability a server needs and the client did not declare", async () => {
    const gw = gateway([testServer("mf", { prefix: null })]);
    const handler = createMcpHandler(() => gw.modernServer(), { legacy: "reject" });
    try {
      const { status, message } = await post(handler, "tools/call", { name: "sample", arguments: {} }, {});
      expect(message.error?.code).toBe(-32021);
      expect(message.error?.data).toEqual({ requiredCapabilities: { sampling: {} } });
      expect(status).toBe(400);
    } finally {
      await handler.close();
    }
  });

  it("answers a method it does not serve -32601 with HTTP 404 (SEP-2575), also as a transparent proxy", async () => {
    const gw = gateway([testServer("mf", { prefix: null })]);
    const handler = createMcpHandler(() => gw.modernServer(), { legacy: "reject" });
    try {
      const { status, message } = await post(handler, "unknown/method", {});
      expect(message.error?.code).toBe(-32601);
      expect(status).toBe(404);
    } finally {
      await handler.close();
    }
  });

  it("gives a newer call its server's questions, not a call another client left parked", async () => {
    const gw = gateway([testServer("mf", { prefix: null })]);
    const handler = createMcpHandler(() => gw.modernServer(), { legacy: "reject" });
    try {
      await post(handler, "tools/call", { name: "meta", arguments: {} });
      // a client that never comes back for its round trip
      const left = await post(handler, "tools/call", { name: "ask-name", arguments: {} }, { elicitation: { form: {} } });
      expect(left.message.result?.resultType).toBe("input_required");
      const client = new ModernClient({ name: "http", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler("elicitation/create", async () => ({ action: "accept" as const, content: { name: "Ed" } }));
      await client.connect(new StreamableHTTPClientTransport(new URL("http://gateway.test/mcp"), { fetch: (url, init) => handler.fetch(new Request(url, init)) }));
      expect(textOf(await client.callTool({ name: "ask-name", arguments: {} }))).toContain("hello Ed");
      await client.close();
    } finally {
      await handler.close();
    }
  });
});

describe("a 2026-07-28 stdio client's listen streams", () => {
  const HOSTILE = path.join(REPO, "test/fixtures/hostile/server.mjs");
  const lists = JSON.stringify({ resources: [{ uri: "note://h", name: "h" }] });

  async function modernClient(): Promise<{ gw: Gateway; client: ModernClient; wire: string[] }> {
    const gw = hostGateway([testServer("hs", { prefix: null })], () => ({ command: NODE, args: [HOSTILE], env: { HOSTILE_LISTS: lists } }));
    gateways.push(gw);
    const toGateway = new PassThrough();
    const fromGateway = new PassThrough();
    const wire: string[] = [];
    fromGateway.on("data", (d: Buffer) => void wire.push(...String(d).split("\n").filter(Boolean)));
    await gw.connect(new BoundedStdioTransport(toGateway, fromGateway));
    const client = new ModernClient({ name: "modern", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: {} });
    await client.connect(new ModernStreamTransport(fromGateway, toGateway));
    await client.listResources();
    return { gw, client, wire };
  }

  const attack = (client: ModernClient, notify: { method: string; params: Record<string, unknown> }) =>
    client.callTool({ name: "attack", arguments: { actions: [{ notify }] } });

  it("hear no server log however many are open, and hold nothing for a URI no server serves", async () => {
    const { gw, client, wire } = await modernClient();
    const sessions = gw.sessions.size;
    for (let i = 0; i < 5; i++) await client.listen({ resourceSubscriptions: ["nothing://x"] });
    expect(gw.sessions.size).toBe(sessions); // no holder for what nothing serves
    for (let i = 0; i < 3; i++) await client.listen({ resourceSubscriptions: ["note://h"] });
    expect(gw.sessions.size).toBe(sessions + 3);
    wire.length = 0;
    await attack(client, { method: "notifications/message", params: { level: "info", data: "hello from the server" } });
    await new Promise((r) => setTimeout(r, 300));
    expect(wire.filter((l) => l.includes('"notifications/message"'))).toEqual([]); // none unsolicited, not one per listen
    // what the streams hold still reaches the client, once
    await attack(client, { method: "notifications/resources/updated", params: { uri: "note://h" } });
    for (let i = 0; i < 50 && !wire.some((l) => l.includes("notifications/resources/updated")); i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    expect(wire.filter((l) => l.includes("notifications/resources/updated"))).toHaveLength(1);
    await client.close();
  });

  it("refuses the 17th listen stream that holds resources on one connection, naming the limit", async () => {
    const { gw, client } = await modernClient();
    const sessions = gw.sessions.size;
    const subs = [];
    for (let i = 0; i < 16; i++) subs.push(await client.listen({ resourceSubscriptions: ["note://h"] }));
    expect(gw.sessions.size).toBe(sessions + 16);
    await expect(client.listen({ resourceSubscriptions: ["note://h"] })).rejects.toThrow(/at most 16 subscriptions\/listen streams naming resources/);
    expect(gw.sessions.size).toBe(sessions + 16);
    // one closed: another may open
    await subs[0]!.close();
    for (let i = 0; i < 50 && gw.sessions.size > sessions + 15; i++) await new Promise((r) => setTimeout(r, 20));
    await client.listen({ resourceSubscriptions: ["note://h"] });
    expect(gw.sessions.size).toBe(sessions + 16);
    await client.close();
  });
});
