/**
 * One server's failure stays that server's (SPEC 4.2), over host processes: the others answer, the client is told
 * why (instructions and a log message), stderr says it once however often it is retried, and a stop never waits
 * for a start (the client's initialize, a build) to finish.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedServer } from "../config/resolve.ts";
import { openAudit } from "./audit.ts";
import { GatewayEvents } from "../monitor/events.ts";
import { Gateway } from "./gateway.ts";
import { hostLauncher } from "./host-launcher.ts";
import type { LaunchedServer, Launcher } from "./launcher.ts";
import { redactor } from "./redact.ts";
import { testServer } from "./_test-server.ts";

const require = createRequire(import.meta.url);
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const server = testServer;

const SECRET = "s3cr3t-value-never-shown";
const open: { gw: Gateway; client?: Client }[] = [];

function gateway(servers: ResolvedServer[], launcher: Launcher, unavailable = new Map<string, string>()) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-failures-"));
  const stderr: string[] = [];
  const gw = new Gateway({
    servers,
    launcher,
    session: "test",
    events: new GatewayEvents(),
    audit: openAudit({ audit: { enabled: false, path: path.join(home, "audit") } }),
    redact: redactor([SECRET]),
    log: (line) => void stderr.push(line),
    unavailable,
  });
  open.push({ gw });
  return { gw, stderr };
}

async function connect(gw: Gateway) {
  const logs: { level: string; logger?: string; data: unknown }[] = [];
  const client = new Client({ name: "t", version: "1" });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await gw.connect(a);
  gw.startEager();
  await client.connect(b);
  open.at(-1)!.client = client;
  return { client, logs };
}

afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.client?.close().catch(() => {});
    await o.gw.close();
  }
});

const ev = hostLauncher(() => ({ command: process.execPath, args: [everything, "stdio"] }));
const why = "secret TOKEN needs the environment variable GH_TOKEN, which is not set; fix: set GH_TOKEN where mcpbox is started";

describe("a server that cannot start", () => {
  it("is named with why in the instructions and an error log message; the others answer", async () => {
    const { gw, stderr } = gateway([server("ev"), server("gh")], ev, new Map([["gh", why]]));
    const { client, logs } = await connect(gw);
    expect(client.getInstructions()).toContain(`- server gh is not available: ${why}`);
    const r = await client.callTool({ name: "ev__echo", arguments: { message: "still here" } });
    expect(JSON.stringify(r.content)).toContain("still here");
    await client.listTools();
    await client.listTools();
    await expect.poll(() => logs.filter((l) => l.logger === "mcpbox")).toEqual([{ level: "error", logger: "mcpbox", data: `server gh is not available: ${why}` }]);
    expect(stderr.filter((l) => l.startsWith("gh:"))).toEqual([`gh: failed: ${why}`]);
    expect(JSON.stringify([client.getInstructions(), logs, stderr])).not.toContain(SECRET);
  });

  it("that fails at every try is told once on stderr and to the client", async () => {
    const launcher = hostLauncher((s) =>
      s.name === "bad" ? { command: process.execPath, args: ["-e", "process.exit(3)"] } : { command: process.execPath, args: [everything, "stdio"] },
    );
    const { gw, stderr } = gateway([server("ev"), server("bad")], launcher);
    const { client, logs } = await connect(gw);
    for (let i = 0; i < 2; i++) {
      await gw.restart("bad").catch(() => {}); // tried again (as the monitor's restart key does), failing the same way
      await client.listTools();
    }
    expect(stderr.filter((l) => /^bad: /.test(l))).toEqual(["bad: starting", "bad: failed: it exited with code 3 while starting"]);
    expect(client.getInstructions()).toMatch(/- server bad is not available: /);
    await expect.poll(() => logs.filter((l) => l.logger === "mcpbox").length).toBe(1);
  });
});

describe("a server that dies and fails at each restart", () => {
  it("is told once per new failure, with the retry said once; the backoff goes on", async () => {
    let launches = 0;
    const host = hostLauncher(() =>
      launches++ === 0 ? { command: process.execPath, args: [everything, "stdio"] } : { command: process.execPath, args: ["-e", "process.exit(3)"] },
    );
    const first: LaunchedServer[] = [];
    const launcher: Launcher = { ...host, launch: async (s) => (first.length === 0 ? (first[0] = await host.launch(s)) : host.launch(s)) };
    const { gw, stderr } = gateway([server("bad")], launcher);
    await connect(gw);
    await expect.poll(() => gw.upstream("bad").state).toBe("running");
    await first[0]!.stop(); // the server dies under the gateway
    await expect.poll(() => launches, { timeout: 8000 }).toBe(3); // restarted twice (after 1 s, then 2 s), failing each time
    await expect.poll(() => gw.upstream("bad").retryInMs).toBe(4000);
    expect(stderr.filter((l) => /^bad: (failed|restarting|starting)/.test(l))).toEqual([
      "bad: starting",
      expect.stringMatching(/^bad: failed: it exited with code \d+ \(retrying in 1s\)$/),
      expect.stringMatching(/^bad: failed: it exited with code \d+ while starting \(retrying in 2s\)$/),
    ]);
  });
});

describe("gateway errors", () => {
  it("name an unknown tool once, after one SDK prefix", async () => {
    const { gw } = gateway([server("ev")], ev);
    const { client } = await connect(gw);
    await expect(client.callTool({ name: "ev__nope", arguments: {} })).rejects.toThrow(/^MCP error -32602: unknown tool: ev__nope$/);
  });
});

describe("stopping", () => {
  it("does not wait for a start that waits for the client's initialize", async () => {
    const { gw } = gateway([server("ev")], ev);
    gw.startEager(); // no client ever connects: the server's start waits for the client's capabilities
    await expect.poll(() => gw.upstream("ev").containerId).toBeDefined();
    const t0 = Date.now();
    await gw.close();
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(gw.upstream("ev").state).toBe("stopped");
  });

  it("does not wait for a build (prepare) to finish", async () => {
    const never: Launcher = { prepare: () => new Promise(() => {}), launch: ev.launch, close: ev.close };
    const { gw } = gateway([server("ev")], never);
    gw.startEager();
    await expect.poll(() => gw.upstream("ev").state).toBe("starting");
    const t0 = Date.now();
    await gw.close();
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
