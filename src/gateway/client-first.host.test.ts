/**
 * The client first (issue 15): a server shown from the catalog cache starts (its launcher's prepare, then launch) once
 * the client had its first list, or a request needs that server, or 50 ms after the client's initialize was answered;
 * a server with nothing remembered starts at once, since its client waits for it. Launches are recorded, not made.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { RememberedServer } from "./catalog-cache.ts";
import { GatewayEvents } from "../monitor/events.ts";
import { Gateway } from "./gateway.ts";
import { EMPTY_LISTS } from "./lists.ts";
import type { Launcher } from "./launcher.ts";
import { redactor } from "./redact.ts";
import { testServer } from "./_test-server.ts";

const remembered: RememberedServer = {
  lists: { ...EMPTY_LISTS, tools: [{ name: "echo", inputSchema: { type: "object" } }] },
  capabilities: { tools: {} },
  era: { kind: "legacy" },
};

const open: { gw: Gateway; client?: Client }[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.client?.close().catch(() => {});
    await h.gw.close();
  }
});

/** A gateway whose launcher remembers `entry` and records when a start reached it (its launch then fails). */
async function gateway(entry: RememberedServer | undefined) {
  const started: string[] = [];
  const launcher: Launcher = {
    prepare: async (s) => void started.push(s.name),
    launch: async () => {
      throw new Error("no container in this test");
    },
    close: async () => {},
    remembered: async () => entry,
  };
  const gw = new Gateway({
    servers: [testServer("ev")],
    launcher,
    session: "test",
    events: new GatewayEvents(),
    audit: { write: () => {}, close: async () => {} } as never,
    redact: redactor([]),
    log: () => {},
  });
  const h: { gw: Gateway; client?: Client } = { gw };
  open.push(h);
  const connect = async () => {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await gw.connect(a);
    gw.startEager();
    const client = new Client({ name: "test", version: "1" });
    h.client = client;
    await client.connect(b);
    return client;
  };
  return { gw, started, connect };
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe("starts shown from the catalog cache wait for the client's first answers", () => {
  it("starts once the client has listed, not while it initializes", async () => {
    const g = await gateway(remembered);
    const client = await g.connect();
    expect(g.started).toEqual([]); // initialize was answered from the remembered lists, nothing started
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["ev__echo"]);
    await tick();
    expect(g.started).toEqual(["ev"]);
  });

  it("starts soon after the client's initialize when the client does not list", async () => {
    const g = await gateway(remembered);
    await g.connect();
    expect(g.started).toEqual([]);
    for (let i = 0; i < 100 && g.started.length === 0; i++) await tick(10);
    expect(g.started).toEqual(["ev"]);
  });

  it("starts at once for a call to the server", async () => {
    const g = await gateway(remembered);
    const client = await g.connect();
    void client.callTool({ name: "ev__echo", arguments: {} }).catch(() => {});
    for (let i = 0; i < 5 && g.started.length === 0; i++) await tick();
    expect(g.started).toEqual(["ev"]);
  });

  it("starts at once when nothing is remembered: the client's initialize waits for the server", async () => {
    const g = await gateway(undefined);
    void g.connect().catch(() => {});
    for (let i = 0; i < 5 && g.started.length === 0; i++) await tick();
    expect(g.started).toEqual(["ev"]);
  });
});
