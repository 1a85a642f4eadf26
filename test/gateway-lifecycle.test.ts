/**
 * The gateway's lifecycle end to end (SPEC 4.2): a container killed mid-call, the gateway killed outright, stdin
 * closed, and many concurrent calls served by exactly one container per server.
 */
import { spawn } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { engine } from "../src/docker/engine.ts";
import { LABEL } from "../src/policy/labels.ts";
import { ensureTestImage, nodeBaseImage } from "./helpers/images.ts";
import { connect, containersOf, FIXTURES, mcpboxCommand, project, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";

let p: TestProject;
const open: Connected[] = [];
const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content ?? "");

beforeAll(async () => {
  const everything = await ensureTestImage("mcpbox-test/everything:latest");
  const node = await nodeBaseImage();
  p = project({
    ev: { image: everything },
    raw: { image: node, command: ["node", "/fixture/raw-server.mjs"], mounts: [{ source: FIXTURES, target: "/fixture" }] },
  });
});

afterEach(async () => {
  for (const c of open.splice(0)) await c.client.close().catch(() => {});
});

async function start(): Promise<Connected> {
  const c = await connect(p);
  open.push(c);
  await c.client.listTools();
  await bothRunning(c.pid); // tools/list may come from the catalog of an earlier run, before the servers are up (issue 15)
  return c;
}

const running = async (pid: number) => (await containersOf(pid)).filter((c) => c.State === "running");
const bothRunning = (pid: number) => waitFor("both servers running", async () => ((await running(pid)).length === 2 ? true : undefined), 60_000);

describe("gateway lifecycle", () => {
  it("fails the calls of a killed server at once, keeps serving the others and restarts it", async () => {
    const gw = await start();
    const [ev] = (await running(gw.pid)).filter((c) => c.Labels[LABEL.server] === "ev");
    let progressed!: () => void;
    const firstProgress = new Promise<void>((r) => (progressed = r));
    const call = gw.client.callTool({ name: "ev__trigger-long-running-operation", arguments: { duration: 100, steps: 100 } }, undefined, {
      onprogress: () => progressed(),
      timeout: 300_000,
    });
    const outcome = call.then(() => "completed", (e: Error) => e.message);
    await firstProgress;
    await engine().getContainer(ev!.Id).kill();
    expect(await outcome).toMatch(/server ev is not available/);
    expect(text(await gw.client.callTool({ name: "raw__echo", arguments: { text: "raw still answers" } }))).toContain("raw still answers");
    const back = await waitFor("ev restarted", async () => {
      const r = await gw.client.callTool({ name: "ev__echo", arguments: { message: "back" } }).catch(() => undefined);
      return r && !r.isError && text(r).includes("back") ? r : undefined;
    }, 60_000);
    expect(back).toBeDefined();
    const after = (await running(gw.pid)).filter((c) => c.Labels[LABEL.server] === "ev");
    expect(after).toHaveLength(1);
    expect(after[0]!.Id).not.toBe(ev!.Id);
  });

  it("fails a call without progress (the fast lane) at once when its server is killed", async () => {
    const gw = await start();
    const [ev] = (await running(gw.pid)).filter((c) => c.Labels[LABEL.server] === "ev");
    const call = gw.client.callTool({ name: "ev__trigger-long-running-operation", arguments: { duration: 100, steps: 5 } }, undefined, { timeout: 300_000 });
    const outcome = call.then(() => "completed", (e: Error) => e.message);
    // the server reads its stdin in order: once a call sent after the long one is answered, the long one has reached
    // it (a fixed sleep lost that race on a loaded machine)
    expect(text(await gw.client.callTool({ name: "ev__echo", arguments: { message: "after the long call" } }))).toContain("after the long call");
    await engine().getContainer(ev!.Id).kill();
    expect(await outcome).toMatch(/server ev is not available: .*it is being restarted/);
    expect(text(await gw.client.callTool({ name: "raw__echo", arguments: { text: "raw still answers" } }))).toContain("raw still answers");
  });

  it("re-lists a restarted server and tells the client when its tools changed", async () => {
    let changes = 0;
    const gw = await connect(p, { setup: (c) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++) });
    open.push(gw);
    await gw.client.listTools();
    await gw.client.callTool({ name: "raw__add_tool", arguments: {} });
    await waitFor("list_changed after add_tool", () => changes >= 1);
    expect((await gw.client.listTools()).tools.some((t) => t.name.startsWith("raw__extra_"))).toBe(true);
    const [raw] = (await running(gw.pid)).filter((c) => c.Labels[LABEL.server] === "raw");
    const before = changes;
    await engine().getContainer(raw!.Id).kill();
    await waitFor("list_changed after the restart", () => changes > before, 60_000);
    expect((await gw.client.listTools()).tools.some((t) => t.name.startsWith("raw__extra_"))).toBe(false);
  });

  it("removes every container when stdin closes", async () => {
    const gw = await start();
    expect(await running(gw.pid)).toHaveLength(2);
    // end stdin ourselves: the SDK's close() would SIGTERM, then SIGKILL a gateway that takes over 2 s to clean up
    (gw.transport as unknown as { _process: { stdin: NodeJS.WritableStream } })._process.stdin.end();
    await waitFor("the gateway to exit", () => (isAlive(gw.pid) ? undefined : true), 60_000);
    expect(await containersOf(gw.pid)).toEqual([]);
  });

  it("removes every container on SIGTERM", async () => {
    const gw = await start();
    expect(await running(gw.pid)).toHaveLength(2);
    process.kill(gw.pid, "SIGTERM");
    await waitFor("the gateway to exit", () => (isAlive(gw.pid) ? undefined : true), 30_000);
    expect(await containersOf(gw.pid)).toEqual([]);
  });

  it("leaves no container of a SIGKILLed gateway after 10 s", async () => {
    const { command, args } = mcpboxCommand();
    const child = spawn(command, [...args, "serve", "-c", p.config], { env: { ...process.env, MCPBOX_HOME: p.home }, stdio: ["pipe", "pipe", "pipe"] });
    const pid = child.pid!;
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }) + "\n");
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) + "\n");
    await new Promise<void>((resolve) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes('"id":2')) resolve();
      });
    });
    await bothRunning(pid);
    expect(await running(pid)).toHaveLength(2);
    child.kill("SIGKILL");
    // SPEC 4.2: none outlives the gateway by more than 10 s
    await waitFor("containers gone", async () => ((await containersOf(pid)).length === 0 ? true : undefined), 10_000);
  });

  it("serves 1000 calls, 16 in flight, with one container per server and no errors", async () => {
    const gw = await start();
    let next = 0;
    let errors = 0;
    const worker = async () => {
      while (next < 1000) {
        const i = next++;
        const r =
          i % 2 === 0
            ? await gw.client.callTool({ name: "ev__echo", arguments: { message: `m${i}` } })
            : await gw.client.callTool({ name: "raw__echo", arguments: { text: `m${i}` } });
        if (r.isError || !text(r).includes(`m${i}`)) errors++;
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(errors).toBe(0);
    const byServer = (await containersOf(gw.pid)).map((c) => c.Labels[LABEL.server]).sort();
    expect(byServer).toEqual(["ev", "raw"]);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
