/**
 * Boundaries 4 and 5 (hrev review): a server's stderr lines are copied to serve's own stderr. An MCP client that
 * pipes serve's stderr and reads it late, or never (it only wanted the JSON-RPC on stdout), leaves that pipe full
 * after 64 KiB, and Node 24 then queues every later write in the gateway's memory (process.stderr to a pipe is not
 * blocking): a server that prints stderr as fast as it can grows the gateway without bound. The gateway must keep
 * answering, and its memory bounded, whatever the reader of its stderr does.
 */
import fs from "node:fs";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpboxCommand, project, type TestProject } from "../helpers/gateway.ts";
import { hostileServer, textOf } from "./_hostile.ts";

let p: TestProject;
let client: Client;
let transport: StdioClientTransport;

beforeAll(async () => {
  p = project({ evil: hostileServer({ name: "evil" }), good: hostileServer({ name: "good" }) });
  const { command, args } = mcpboxCommand();
  transport = new StdioClientTransport({
    command,
    args: [...args, "serve", "-c", p.config],
    env: { ...(process.env as Record<string, string>), MCPBOX_HOME: p.home, NO_COLOR: "1" },
    stderr: "pipe", // and never read
    cwd: p.dir,
  });
  client = new Client({ name: "e2e", version: "1" }, { capabilities: {} });
  await client.connect(transport);
  (transport.stderr as Readable | null)?.pause();
});

afterAll(async () => {
  (transport?.stderr as Readable | null | undefined)?.resume();
  await client?.close().catch(() => {});
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("a server's stderr flood with a client that does not read serve's stderr", () => {
  it("leaves the gateway answering the other server", async () => {
    const before = await client.callTool({ name: "good__echo", arguments: { text: "before" } });
    expect(textOf(before)).toContain("good: ");
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${transport.pid}/status`, "utf8"))![1]) * 1024;
    const base = rss();
    // 256 MiB of stderr lines (a pipe holds 64 KiB), in 16 calls so the server itself does not hold them all at once
    const flood = [{ repeat: 16 * 1024, do: [{ stderr: "e".repeat(1023) }] }];
    // under CI load the gateway may restart evil mid-flood (its connection closes): that call fails, the next one goes
    // to the restarted server; half of the flood (128 MiB: the unbounded gateway grew by more than its bytes) suffices
    let flooded = 0;
    for (let i = 0; i < 16; i++) {
      const r = await client.callTool({ name: "evil__attack", arguments: { actions: flood } }, undefined, { timeout: 120_000 }).then(
        () => true,
        (e: Error) => (/server evil is not available/.test(e.message) ? false : Promise.reject(e)),
      );
      if (r) flooded++;
    }
    expect(flooded).toBeGreaterThanOrEqual(8);
    await new Promise((r) => setTimeout(r, 3000));
    const grown = rss() - base;
    expect(grown, `serve grew by ${(grown / 2 ** 20).toFixed(0)} MiB`).toBeLessThan(64 * 2 ** 20);
    const t0 = Date.now();
    const after = await client.callTool({ name: "good__echo", arguments: { text: "after" } }, undefined, { timeout: 10_000 });
    expect(textOf(after)).toContain("good: ");
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
