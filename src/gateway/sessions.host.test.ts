/**
 * Several clients on one gateway (SPEC 4.9), sharing the same server-everything run as a host process (no Docker):
 * each client's progress and server-to-client requests go to it only, a client that leaves cancels its own calls
 * and no one else's. And a transparent proxy (`prefix: false`) shows the server's own serverInfo and log loggers.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { openAudit } from "./audit.ts";
import { GatewayEvents, type GatewayEvent } from "./events.ts";
import { Gateway } from "./gateway.ts";
import { hostLauncher } from "./host-launcher.ts";
import { redactor } from "./redact.ts";
import type { ClientSession } from "./session.ts";
import { BoundedStdioTransport } from "./stdio.ts";
import { testServer } from "./_test-server.ts";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

let home: string;
const gateways: Gateway[] = [];

function makeGateway(prefix: string | null, events = new GatewayEvents()): Gateway {
  const gw = new Gateway({
    servers: [testServer("ev", { prefix })],
    launcher: hostLauncher(() => ({ command: process.execPath, args: [everything, "stdio"] })),
    session: "test",
    events,
    audit: openAudit({ audit: { enabled: false } }),
    redact: redactor([]),
    log: () => {},
  });
  gateways.push(gw);
  return gw;
}

/** A client over the gateway's own stdio transport (the raw route), as `mcpbox serve` has it. */
async function stdioClient(gw: Gateway, name: string): Promise<{ client: Client; session: ClientSession }> {
  const toGateway = new PassThrough();
  const fromGateway = new PassThrough();
  const session = await gw.connect(new BoundedStdioTransport(toGateway, fromGateway));
  const client = new Client({ name, version: "1" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: `sampled by ${name}` }, model: "m" }));
  await client.connect(new StdioServerTransport(fromGateway, toGateway)); // a line-framed stream transport, used from the client side
  return { client, session };
}

async function memoryClient(gw: Gateway, name: string): Promise<{ client: Client; session: ClientSession }> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const session = await gw.connect(a);
  const client = new Client({ name, version: "1" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: `sampled by ${name}` }, model: "m" }));
  await client.connect(b);
  return { client, session };
}

beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-gw-sessions-"));
});

afterAll(async () => {
  await Promise.allSettled(gateways.map((g) => g.close()));
  fs.rmSync(home, { recursive: true, force: true });
});

describe("several clients on one gateway", () => {
  const seen: GatewayEvent[] = [];
  let gw: Gateway;
  let a: { client: Client; session: ClientSession };
  let b: { client: Client; session: ClientSession };

  beforeAll(async () => {
    const events = new GatewayEvents();
    events.on((e) => void seen.push(e));
    gw = makeGateway("ev", events);
    gw.startEager();
    a = await stdioClient(gw, "A");
    b = await memoryClient(gw, "B");
  });

  it("serves both from the same server, with one container's worth of state", async () => {
    const [la, lb] = await Promise.all([a.client.listTools(), b.client.listTools()]);
    expect(la.tools.map((t) => t.name)).toContain("ev__echo");
    expect(lb.tools).toEqual(la.tools);
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: "ev__echo", arguments: { message: "from A" } }),
      b.client.callTool({ name: "ev__echo", arguments: { message: "from B" } }),
    ]);
    expect(JSON.stringify(ra.content)).toContain("from A");
    expect(JSON.stringify(rb.content)).toContain("from B");
    expect(gw.sessions.size).toBe(2);
    expect(seen.filter((e) => e.type === "server" && e.state === "starting")).toHaveLength(1);
  });

  it("sends each client the progress of its own calls only", async () => {
    const pa: number[] = [];
    const pb: number[] = [];
    const call = (c: Client, into: number[]) =>
      c.callTool({ name: "ev__trigger-long-running-operation", arguments: { duration: 1, steps: 4 } }, undefined, { onprogress: (p) => void into.push(p.progress) });
    await Promise.all([call(a.client, pa), call(b.client, pb)]);
    expect(pa).toEqual([1, 2, 3, 4]);
    expect(pb).toEqual([1, 2, 3, 4]);
  });

  it("sends a server's request to the client whose call it serves", async () => {
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: "ev__trigger-sampling-request", arguments: { prompt: "x", maxTokens: 5 } }),
      new Promise((r) => setTimeout(r, 300)).then(() => b.client.callTool({ name: "ev__echo", arguments: { message: "idle" } })),
    ]);
    expect(JSON.stringify(ra.content)).toContain("sampled by A");
    expect(JSON.stringify(rb.content)).toContain("idle");
    const rb2 = await b.client.callTool({ name: "ev__trigger-sampling-request", arguments: { prompt: "x", maxTokens: 5 } });
    expect(JSON.stringify(rb2.content)).toContain("sampled by B");
  });

  it("cancels the calls of a client that leaves, and only those", async () => {
    const c = await stdioClient(gw, "C");
    const pending = c.client.callTool({ name: "ev__trigger-long-running-operation", arguments: { duration: 5, steps: 5 } }).catch((e: unknown) => e);
    const other = b.client.callTool({ name: "ev__trigger-long-running-operation", arguments: { duration: 1, steps: 2 } });
    await new Promise((r) => setTimeout(r, 300));
    await c.session.close();
    await c.session.closed;
    expect(gw.sessions.has(c.session)).toBe(false);
    expect((await other).isError).toBeFalsy();
    const cancelled = seen.filter((e) => e.type === "call" && e.tool === "trigger-long-running-operation" && e.outcome === "cancelled");
    expect(cancelled).toHaveLength(1);
    await c.client.close();
    expect(await pending).toBeInstanceOf(Error);
    // the others keep being served
    expect(JSON.stringify((await a.client.callTool({ name: "ev__echo", arguments: { message: "still" } })).content)).toContain("still");
  });
});

describe("a transparent proxy (prefix: false)", () => {
  it("shows the server's own serverInfo, passes its log messages with their own logger and its own unknown-tool answer", async () => {
    const gw = makeGateway(null);
    gw.startEager();
    const { client } = await stdioClient(gw, "T");
    expect(client.getServerVersion()?.name).not.toBe("mcpbox");
    expect(client.getServerVersion()?.name).toMatch(/everything/);
    const logs: { logger?: string }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.setLoggingLevel("debug");
    await client.callTool({ name: "toggle-simulated-logging", arguments: {} });
    for (let i = 0; i < 60 && logs.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    await client.callTool({ name: "toggle-simulated-logging", arguments: {} });
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.map((l) => l.logger)).toEqual(logs.map(() => undefined)); // server-everything names no logger; an aggregate says "ev"
    // a name it did not list is the server's to answer, in its own words
    const unknown = await client.callTool({ name: "no-such-tool", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain("Tool no-such-tool not found");
    await client.close();
  });
});
