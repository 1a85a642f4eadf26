/**
 * A gateway whose launcher remembers what each server offered when it last ran (catalog-cache.ts): the client is
 * answered from that at once while the server starts; a call waits for the start and goes only to a tool the server
 * then lists; the server's own lists replace the remembered ones (list_changed) and are kept for the next start.
 * Servers are server-everything as host processes (no Docker).
 */
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { RememberedServer } from "./catalog-cache.ts";
import { GatewayEvents } from "../monitor/events.ts";
import { Gateway } from "./gateway.ts";
import { hostLauncher } from "./host-launcher.ts";
import { EMPTY_LISTS } from "./lists.ts";
import type { Launcher } from "./launcher.ts";
import { redactor } from "./redact.ts";
import { testServer } from "./_test-server.ts";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const tool = (name: string) => ({ name, description: `remembered ${name}`, inputSchema: { type: "object" as const } });
const remembered: RememberedServer = {
  lists: { ...EMPTY_LISTS, tools: [tool("echo"), tool("vanished")] },
  capabilities: { tools: { listChanged: true } },
  instructions: "remembered instructions",
  era: { kind: "legacy" },
};

interface Harness {
  gw: Gateway;
  client: Client;
  kept: RememberedServer[];
  listChanges: () => number;
  /** lets the server's launch go on */
  release: () => void;
  events: GatewayEvents;
}

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    h.release();
    await h.client.close().catch(() => {});
    await h.gw.close();
  }
});

async function harness(entry: RememberedServer | undefined, fail = false, approve: string[] = []): Promise<Harness> {
  const host = hostLauncher(() => ({ command: process.execPath, args: [everything, "stdio"] }));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const kept: RememberedServer[] = [];
  const launcher: Launcher = {
    prepare: () => gate, // the server's start waits until the test lets it go on
    launch: (s) => (fail ? Promise.reject(new Error("no such image")) : host.launch(s)),
    close: () => host.close(),
    remembered: async () => entry,
    remember: async (_s, _l, e) => void kept.push(e),
  };
  const events = new GatewayEvents();
  const gw = new Gateway({
    servers: [testServer("ev", { ...(fail ? { restart: "never" as const } : {}), approve })],
    launcher,
    session: "test",
    events,
    audit: { write: () => {}, close: async () => {} } as never,
    redact: redactor([]),
    log: () => {},
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await gw.connect(a);
  gw.startEager();
  const client = new Client({ name: "test", version: "1" }, { capabilities: { elicitation: { form: {} } } });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  // a person approves once the server is up (the approval waits on the start, the call was planned from memory)
  client.setRequestHandler(ElicitRequestSchema, async () => {
    release();
    for (let i = 0; i < 400 && gw.upstream("ev").state !== "running"; i++) await new Promise((r) => setTimeout(r, 25));
    return { action: "accept", content: { approve: true } };
  });
  const h = { gw, client, kept, listChanges: () => changes, release, events };
  open.push(h);
  await client.connect(b);
  return h;
}

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0]?.text ?? "");
const until = async (what: () => boolean) => {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(what()).toBe(true);
};

describe("a gateway showing what its servers offered when they last ran", () => {
  it("answers initialize and tools/list before the server is up, with the remembered tools under the same policy", async () => {
    const h = await harness(remembered);
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ev__echo", "ev__vanished"]);
    expect(h.gw.upstream("ev").state).toBe("starting"); // its launch is still held back
    expect(h.gw.upstream("ev").era).toBe("legacy"); // requests sent meanwhile are built for its era
    expect(h.client.getServerCapabilities()?.tools).toBeDefined();
    expect(h.client.getInstructions()).toContain("remembered instructions");
  });

  it("a call waits for the start; one to a remembered tool the server no longer has fails clearly and is not sent", async () => {
    const h = await harness(remembered);
    await h.client.listTools();
    const echo = h.client.callTool({ name: "ev__echo", arguments: { message: "hi" } });
    const vanished = h.client.callTool({ name: "ev__vanished", arguments: {} });
    vanished.catch(() => {});
    await new Promise((r) => setTimeout(r, 100));
    expect(h.gw.upstream("ev").state).toBe("starting");
    h.release();
    expect(text(await echo)).toContain("hi");
    await expect(vanished).rejects.toThrow(/server ev no longer offers the tool vanished: the list shown while it started was from its last run/);
    // the server's own lists replace the remembered ones, told to the client, and kept for the next start
    await until(() => h.listChanges() > 0);
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain("ev__vanished");
    expect(tools.map((t) => t.name)).toContain("ev__get-sum");
    await until(() => h.kept.length === 1);
    expect(h.kept[0]!.lists.tools.map((t) => t.name)).toContain("get-sum");
    expect(h.kept[0]!.capabilities.tools).toBeDefined();
    expect(h.kept[0]!.era).toEqual({ kind: "legacy" });
    // a tool the catalog no longer has is unknown to the gateway itself now
    await expect(h.client.callTool({ name: "ev__vanished", arguments: {} })).rejects.toThrow(/ev__vanished/);
  });

  it("a remembered tool that waits for approval is refused, not sent, once the started server no longer lists it", async () => {
    const h = await harness(remembered, false, ["vanished"]);
    const calls: { tool?: string; outcome: string }[] = [];
    h.events.on((e) => void (e.type === "call" && calls.push({ tool: e.tool, outcome: e.outcome })));
    await h.client.listTools();
    expect(h.gw.upstream("ev").state).toBe("starting");
    const vanished = h.client.callTool({ name: "ev__vanished", arguments: { secret: "for the old tool" } });
    await expect(vanished).rejects.toThrow(/server ev no longer offers the tool vanished: the list shown while it started was from its last run/);
    expect(h.gw.upstream("ev").state).toBe("running"); // approved after the start: the raw route was open
    expect(calls).toEqual([{ tool: "vanished", outcome: "error" }]);
  });

  it("without remembered lists, initialize waits for the server as before", async () => {
    const started = Date.now();
    const ready = harness(undefined);
    await new Promise((r) => setTimeout(r, 300));
    open.at(-1)?.release();
    const h = await ready;
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(h.gw.upstream("ev").state).toBe("running");
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).toContain("ev__echo");
    expect(h.listChanges()).toBe(0);
  });

  it("a first start that fails takes the remembered tools away again (list_changed)", async () => {
    const h = await harness(remembered, true);
    expect((await h.client.listTools()).tools).toHaveLength(2);
    h.release();
    await until(() => h.gw.upstream("ev").state === "failed");
    await until(() => h.listChanges() > 0);
    expect((await h.client.listTools()).tools).toEqual([]);
    expect(h.gw.upstream("ev").offered).toBeUndefined();
    expect(h.kept).toEqual([]);
  });

  it("an exact memory: no list_changed and nothing written again once the server is up", async () => {
    const pending = harness(undefined);
    await new Promise((r) => setTimeout(r, 50));
    open.at(-1)?.release();
    const first = await pending;
    await until(() => first.kept.length === 1);
    const h = await harness(first.kept[0]);
    expect(h.gw.upstream("ev").state).toBe("starting");
    expect((await h.client.listTools()).tools.length).toBe(first.kept[0]!.lists.tools.length);
    h.release();
    await until(() => h.gw.upstream("ev").state === "running");
    await new Promise((r) => setTimeout(r, 100));
    expect(h.listChanges()).toBe(0);
    expect(h.kept).toEqual([]);
  });
});
