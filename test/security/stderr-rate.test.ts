/**
 * Boundary 5 past the gateway (hrev): a server's stderr lines are copied to serve's stderr, which an MCP client that
 * reads it keeps in a log file of its own (Claude Desktop's `mcp-server-<name>.log`, Cursor's and others' logs): a
 * server printing stderr as fast as it can went through whole, tens of MiB a second, onto the disk of whoever reads
 * it. The hostile fixture floods 32 MiB of stderr lines while the client reads every byte serve prints; serve must
 * copy at most its burst and rate of them (1 MiB, then 64 KiB a second), say how many it did not show, and keep them
 * for the monitor.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { hostileServer, textOf } from "./_hostile.ts";

const MiB = 1024 * 1024;
let p: TestProject;
let c: Connected;

beforeAll(async () => {
  p = project({ evil: hostileServer({ name: "evil" }) });
  c = await connect(p);
});

afterAll(async () => {
  await c?.client.close().catch(() => {});
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("a server's stderr flood with a client that reads serve's stderr", () => {
  it("reaches serve's stderr only within its rate, the rest counted", async () => {
    const started = Date.now();
    const flood = [{ repeat: 32 * 1024, do: [{ stderr: `FLOOD-${"e".repeat(1017)}` }] }];
    await c.client.callTool({ name: "evil__attack", arguments: { actions: flood } }, undefined, { timeout: 120_000 });
    await new Promise((r) => setTimeout(r, 1500)); // the last lines through the gateway
    const marker = `after-${Date.now()}`;
    await c.client.callTool({ name: "evil__attack", arguments: { actions: [{ stderr: marker }] } });
    const seconds = (Date.now() - started) / 1000;
    const shown = c.stderr().split("\n").filter((l) => l.includes("FLOOD-"));
    const bytes = shown.reduce((n, l) => n + l.length + 1, 0);
    expect(bytes, `serve copied ${(bytes / MiB).toFixed(1)} MiB of the flood in ${seconds.toFixed(1)} s`).toBeLessThan(MiB + 64 * 1024 * (seconds + 1) + 64 * 1024);
    // once its budget refills, the next line is shown, after how many were not
    await waitFor("the next line", () => (c.stderr().includes(marker) ? true : undefined), 30_000);
    expect(c.stderr()).toMatch(/evil: \d+ stderr lines not shown \(over 64 KiB a second/);
    expect(textOf(await c.client.callTool({ name: "evil__echo", arguments: { text: "still" } }))).toContain("still");
  });
});
