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
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioServerTransport as ModernStreamTransport } from "@modelcontextprotocol/server/stdio";
import { openAudit } from "./audit.ts";
import { GatewayEvents, type GatewayEvent } from "../monitor/events.ts";
import { Gateway } from "./gateway.ts";
import { hostGateway } from "./_host-gateway.ts";
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
    audit: openAudit({ audit: { enabled: false, path: undefined } }),
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

async function memoryClient(gw: Gateway, name: string, capabilities: Record<string, unknown> = { sampling: {} }): Promise<{ client: Client; session: ClientSession }> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const session = await gw.connect(a);
  const client = new Client({ name, version: "1" }, { capabilities });
  if (capabilities.sampling) client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: `sampled by ${name}` }, model: "m" }));
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
    // each its own 1..4 in order, never the other's too; the SDK v1 Client may drop the last one when it reads it in
    // one chunk with the answer (it handles a notification a microtask late, the answer at once): a client-side race
    for (const got of [pa, pb]) {
      expect(got.length).toBeGreaterThanOrEqual(3);
      expect(got).toEqual([1, 2, 3, 4].slice(0, got.length));
    }
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

describe("the tasks extension in an aggregate", () => {
  it("names each task's server in its handle, and routes tasks/get, tasks/result and tasks/list by it", async () => {
    const gw = makeGateway("ev");
    gw.startEager();
    const { client } = await memoryClient(gw, "tasks");
    const created = (await client.request(
      { method: "tools/call", params: { name: "ev__simulate-research-query", arguments: { topic: "gateways", ambiguous: false }, task: { ttl: 60_000 } } },
      ResultSchema,
    )) as { task?: { taskId: string; status: string } };
    const handle = created.task!.taskId;
    expect(handle).toMatch(/^ev:/);
    let status = "";
    for (let i = 0; i < 100 && status !== "completed"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = ((await client.request({ method: "tasks/get", params: { taskId: handle } }, ResultSchema)) as { taskId: string; status: string }).status;
    }
    expect(status).toBe("completed");
    const listed = (await client.request({ method: "tasks/list", params: {} }, ResultSchema)) as { tasks: { taskId: string }[] };
    expect(listed.tasks.map((t) => t.taskId)).toContain(handle);
    const result = await client.request({ method: "tasks/result", params: { taskId: handle } }, ResultSchema);
    expect(JSON.stringify(result)).toContain("gateways");
    await expect(client.request({ method: "tasks/get", params: { taskId: "other:1" } }, ResultSchema)).rejects.toThrow(/unknown task/);
    // another client sees none of it: not listed, not readable, not cancellable
    const other = await memoryClient(gw, "other");
    const theirs = (await other.client.request({ method: "tasks/list", params: {} }, ResultSchema)) as { tasks: { taskId: string }[] };
    expect(theirs.tasks.map((t) => t.taskId)).not.toContain(handle);
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      await expect(other.client.request({ method, params: { taskId: handle } }, ResultSchema)).rejects.toThrow(/unknown task/);
    }
    expect(((await client.request({ method: "tasks/get", params: { taskId: handle } }, ResultSchema)) as { status: string }).status).toBe("completed");
  });
});

describe("what the servers are told a client can do", () => {
  it("is not the first client's word: a later client that can sample is asked, one that cannot is refused with why", async () => {
    const gw = makeGateway("ev");
    gw.startEager();
    const first = await memoryClient(gw, "first", {}); // can do nothing
    const later = await memoryClient(gw, "later");
    const sampled = await later.client.callTool({ name: "ev__trigger-sampling-request", arguments: { prompt: "x", maxTokens: 5 } });
    expect(JSON.stringify(sampled.content)).toContain("sampled by later");
    const refused = await first.client.callTool({ name: "ev__trigger-sampling-request", arguments: { prompt: "x", maxTokens: 5 } }).catch((e: Error) => e);
    expect(JSON.stringify(refused instanceof Error ? refused.message : refused)).toContain("the client does not support sampling");
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

describe("a 2026-07-28 client (server/discover, per-request _meta, no handshake)", () => {
  let gw: Gateway;
  let client: ModernClient;
  let rootsAsked = 0;

  beforeAll(async () => {
    gw = hostGateway([testServer("ev", { mounts: [{ source: home, target: "/data", readOnly: true }], approve: ["get-sum"] })], () => ({ command: process.execPath, args: [everything, "stdio"] }));
    gateways.push(gw);
    const toGateway = new PassThrough();
    const fromGateway = new PassThrough();
    await gw.connect(new BoundedStdioTransport(toGateway, fromGateway));
    client = new ModernClient(
      { name: "modern", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} } },
    );
    client.setRequestHandler("sampling/createMessage", async () => ({ role: "assistant", content: { type: "text", text: "sampled by modern" }, model: "m" }));
    client.setRequestHandler("elicitation/create", async (r) => {
      const content: Record<string, string | number | boolean> = String(r.params.message).startsWith("mcpbox:")
        ? { approve: true }
        : { name: "Ann", check: true, color: "blue", email: "a@b.c", number: 3, integer: 3 };
      return { action: "accept" as const, content };
    });
    client.setRequestHandler("roots/list", async () => (rootsAsked++, { roots: [{ uri: `file://${home}/sub`, name: "sub" }, { uri: "file:///etc" }] }));
    await client.connect(new ModernStreamTransport(fromGateway, toGateway));
  });

  afterAll(async () => {
    await client?.close().catch(() => {});
  });

  it("discovers the gateway and gets its tools and calls", async () => {
    expect(client.getProtocolEra()).toBe("modern");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("ev__echo");
    const r = await client.callTool({ name: "ev__echo", arguments: { message: "modern hi" } });
    expect(JSON.stringify(r.content)).toContain("modern hi");
  });

  it("turns a 2025-11-25 server's sampling, elicitation and roots requests into input_required round trips", async () => {
    const sampled = await client.callTool({ name: "ev__trigger-sampling-request", arguments: { prompt: "x", maxTokens: 5 } });
    expect(JSON.stringify(sampled.content)).toContain("sampled by modern");
    const elicited = await client.callTool({ name: "ev__trigger-elicitation-request", arguments: {} });
    expect(JSON.stringify(elicited.content)).toContain("Ann");
    const roots = await client.callTool({ name: "ev__get-roots-list", arguments: {} });
    expect(rootsAsked).toBeGreaterThan(0);
    expect(JSON.stringify(roots.content)).toContain("file:///data/sub");
    expect(JSON.stringify(roots.content)).not.toContain("/etc");
  });

  it("asks for an approval in a round trip and runs the call with the arguments shown", async () => {
    const r = await client.callTool({ name: "ev__get-sum", arguments: { a: 1, b: 2 } });
    expect(JSON.stringify(r.content)).toContain("3");
  });
});
