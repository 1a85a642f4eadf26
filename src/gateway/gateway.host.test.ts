/**
 * The gateway's MCP logic against the real server-everything run as host processes (no Docker): aggregation,
 * routing, progress, sampling, elicitation, roots, logging, guards, audit.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedServer } from "../config/resolve.ts";
import { openAudit } from "./audit.ts";
import { GatewayEvents, type GatewayEvent } from "../monitor/events.ts";
import { Gateway } from "./gateway.ts";
import { hostLauncher } from "./host-launcher.ts";
import { listCache } from "./list-cache.ts";
import { redactor } from "./redact.ts";
import { testServer } from "./_test-server.ts";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const server = testServer;

let home: string;

const servers = () => [
  server("ev", { mounts: [{ source: home, target: "/data", readOnly: true }], approve: ["get-sum"] }),
  server("ev2", { tools: { allow: ["echo", "get-*"], deny: ["get-env"] }, startup: "lazy" }),
];

function makeGateway(events = new GatewayEvents()): Gateway {
  return new Gateway({
    servers: servers(),
    launcher: hostLauncher(() => ({ command: process.execPath, args: [everything, "stdio"] })),
    session: "test",
    events,
    audit: openAudit({ audit: { enabled: true, path: path.join(home, "audit") } }),
    redact: redactor(["supersecret"]),
    log: () => {},
    listCache: listCache(path.join(home, "cache")),
  });
}
let gw: Gateway;
let client: Client;
const logs: unknown[] = [];
let toolListChanges = 0;
let clientRoots: { uri: string; name?: string }[] = [];

const seen: GatewayEvent[] = [];

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-gw-"));
  const events = new GatewayEvents();
  events.on((e) => void seen.push(e));
  gw = makeGateway(events);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await gw.connect(a);
  gw.startEager();
  client = new Client(
    { name: "test", version: "1" },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: "sampled!" },
    model: "test-model",
  }));
  client.setRequestHandler(ElicitRequestSchema, async (r) => {
    if (String(r.params.message).startsWith("mcpbox:")) return { action: "accept", content: { approve: true } };
    return { action: "accept", content: { name: "Ann", check: true, color: "blue", email: "a@b.c", number: 3, integer: 3 } };
  });
  clientRoots = [{ uri: `file://${home}/sub`, name: "sub" }, { uri: "file:///etc", name: "etc" }];
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: clientRoots }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolListChanges++);
  await client.connect(b);
});

afterAll(async () => {
  await client?.close();
  await gw?.close();
});

describe("gateway over host processes", () => {
  it("lists tools with prefixes and applies allow/deny", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("ev__echo");
    expect(names).toContain("ev__get-env");
    expect(names).toContain("ev2__echo");
    expect(names).toContain("ev2__get-sum");
    expect(names).not.toContain("ev2__get-env");
    expect(names).not.toContain("ev2__trigger-long-running-operation");
  });

  it("routes a call and refuses a hidden tool", async () => {
    const r = await client.callTool({ name: "ev2__echo", arguments: { message: "hi" } });
    expect(JSON.stringify(r.content)).toContain("hi");
    const denied = await client.callTool({ name: "ev2__get-env", arguments: {} });
    expect(denied.isError).toBe(true);
  });

  it("lists prompts and resources", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain("ev__simple-prompt");
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0]!;
    const read = await client.readResource({ uri: first.uri });
    expect(read.contents.length).toBeGreaterThan(0);
  });

  it("routes completions by prompt name and by resource template", async () => {
    const byPrompt = await client.complete({ ref: { type: "ref/prompt", name: "ev__completable-prompt" }, argument: { name: "department", value: "Eng" } });
    expect(byPrompt.completion.values).toEqual(["Engineering"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    const template = resourceTemplates.find((t) => t.uriTemplate.endsWith("{resourceId}"))!;
    const byTemplate = await client.complete({ ref: { type: "ref/resource", uri: template.uriTemplate }, argument: { name: "resourceId", value: "3" } });
    expect(byTemplate.completion.values).toEqual(["3"]);
    const read = await client.readResource({ uri: template.uriTemplate.replace("{resourceId}", "3") });
    expect(read.contents.length).toBe(1);
  });

  it("forwards progress of a long-running tool", async () => {
    const progress: number[] = [];
    const r = await client.callTool(
      { name: "ev__trigger-long-running-operation", arguments: { duration: 1, steps: 4 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(r.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThanOrEqual(3);
  });

  it("forwards sampling requests to the client", async () => {
    const r = await client.callTool({ name: "ev__trigger-sampling-request", arguments: { prompt: "x", maxTokens: 10 } });
    expect(JSON.stringify(r.content)).toContain("sampled!");
  });

  it("asks for approval, then forwards the call", async () => {
    const r = await client.callTool({ name: "ev__get-sum", arguments: { a: 1, b: 2 } });
    expect(JSON.stringify(r.content)).toContain("3");
  });

  it("translates roots to mount targets", async () => {
    const r = await client.callTool({ name: "ev__get-roots-list", arguments: {} });
    const text = JSON.stringify(r.content);
    expect(text).toContain("file:///data/sub");
    expect(text).not.toContain("/etc");
    expect(text).not.toContain(home);
  });

  it("tells servers when the client's roots change", async () => {
    clientRoots = [{ uri: `file://${home}/other`, name: "other" }];
    await client.sendRootsListChanged();
    let text = "";
    for (let i = 0; i < 100 && !text.includes("file:///data/other"); i++) {
      await new Promise((r) => setTimeout(r, 50)); // the server asks for the new roots on its own time
      text = JSON.stringify((await client.callTool({ name: "ev__get-roots-list", arguments: {} })).content);
    }
    expect(text).toContain("file:///data/other");
    expect(text).not.toContain("file:///data/sub");
  });

  it("lists a lazy server from the cache without starting it, and starts it at its first call", async () => {
    const second = makeGateway();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await second.connect(a);
    second.startEager();
    const c = new Client({ name: "second", version: "1" });
    try {
      await c.connect(b);
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).toContain("ev2__echo");
      expect(second.upstream("ev2").state).toBe("idle");
      const r = await c.callTool({ name: "ev2__echo", arguments: { message: "woken" } });
      expect(JSON.stringify(r.content)).toContain("woken");
      expect(second.upstream("ev2").state).toBe("running");
    } finally {
      await c.close();
      await second.close();
    }
  });

  it("emits server states, calls, stderr lines and guard decisions on the event bus", () => {
    const states = seen.flatMap((e) => (e.type === "server" && e.server === "ev" ? [e.state] : []));
    expect(states.slice(0, 2)).toEqual(["starting", "running"]);
    expect(seen).toContainEqual(expect.objectContaining({ type: "server", server: "ev2", state: "idle" }));
    expect(seen).toContainEqual(expect.objectContaining({ type: "call", server: "ev2", tool: "echo", outcome: "ok" }));
    expect(seen).toContainEqual(expect.objectContaining({ type: "guard", server: "ev2", tool: "get-env", decision: "denied" }));
    expect(seen).toContainEqual(expect.objectContaining({ type: "guard", server: "ev", tool: "get-sum", decision: "approved" }));
    expect(seen.some((e) => e.type === "stderr" && e.server === "ev")).toBe(true);
  });

  it("writes audit lines", async () => {
    await new Promise((r) => setTimeout(r, 100));
    const dir = path.join(home, "audit");
    const lines = fs.readdirSync(dir).flatMap((f) => fs.readFileSync(path.join(dir, f), "utf8").trim().split("\n")).map((l) => JSON.parse(l));
    expect(lines.some((l) => l.tool === "get-env" && l.outcome === "denied")).toBe(true);
    expect(lines.some((l) => l.tool === "echo" && l.outcome === "ok" && l.server === "ev2")).toBe(true);
  });
});
