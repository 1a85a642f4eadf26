/**
 * The early answers (SECURITY.md boundary 10, early-stdio.ts) and the ids a client reuses. JSON-RPC lets a client use
 * an id again once its request is answered; a client answered early has its answers before the gateway has even
 * read those requests. The gateway's own answers to them are dropped (the client has one): the dropping must go by
 * the request it answers, never by the id alone, or a later request with that id loses its answer (or gets another
 * one), and the record of this set-up takes one method's answer as another's.
 * The hostile party is the client (or any program a user points at `mcpbox serve`), raw lines on stdin.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { nodeBaseImage } from "../helpers/images.ts";
import { containersOf, FIXTURES, mcpboxCommand, project, waitFor, type TestProject } from "../helpers/gateway.ts";

let p: TestProject;
const children: ChildProcessWithoutNullStreams[] = [];
const INIT = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw-e2e", version: "1" } };
type Message = { id?: unknown; method?: unknown; result?: Record<string, unknown>; error?: unknown };

beforeAll(async () => {
  const node = await nodeBaseImage();
  p = project({ raw: { image: node, command: ["node", "/fixture/raw-server.mjs"], mounts: [{ source: FIXTURES, target: "/fixture" }] } });
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});
afterAll(() => fs.rmSync(p.dir, { recursive: true, force: true }));

/** `mcpbox serve` with raw lines on its stdin; every message it writes, in order. */
function serve() {
  const { command, args } = mcpboxCommand();
  const child = spawn(command, [...args, "serve", "-c", p.config], { cwd: p.dir, env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" } });
  children.push(child);
  const got: Message[] = [];
  let tail = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    const lines = (tail + d.toString()).split("\n");
    tail = lines.pop()!;
    for (const l of lines) if (l.trim()) got.push(JSON.parse(l) as Message);
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const send = (m: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
  /** the n-th (from 1) answer with this id */
  const answer = (id: unknown, n = 1, timeoutMs = 20_000) =>
    waitFor(`answer ${n} to id ${JSON.stringify(id)}`, () => got.filter((m) => m.id === id && m.method === undefined)[n - 1], timeoutMs).catch((e: Error) => {
      throw new Error(`${e.message}; got ${JSON.stringify(got)}; stderr ${stderr}`);
    });
  const close = async () => {
    const exited = new Promise((r) => child.once("exit", r));
    child.stdin.end();
    await exited;
    await waitFor("the gateway's containers removed", async () => ((await containersOf(child.pid!)).length === 0 ? true : undefined), 30_000);
  };
  return { send, answer, got, close };
}

const recorded = () => {
  const dir = path.join(p.home, "cache", "answers");
  return fs.readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => (JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as { answers: { method: string; result: string }[] }).answers).flat();
};

describe("ids a client uses again after its early answers", () => {
  it("a first run records this client's initialize and tools/list", async () => {
    const s = serve();
    s.send({ id: 1, method: "initialize", params: INIT });
    await s.answer(1, 1, 60_000);
    s.send({ method: "notifications/initialized" });
    s.send({ id: 2, method: "tools/list" });
    expect(((await s.answer(2, 1, 60_000)).result?.tools as unknown[]).length).toBe(3);
    await s.close();
    expect(recorded().map((a) => a.method).sort()).toEqual(["initialize", "tools/list"]);
  });

  it("initialize and tools/list with one id: both answered early, the session goes on, the record keeps each method's own answer", async () => {
    const s = serve();
    s.send({ id: 1, method: "initialize", params: INIT });
    expect((await s.answer(1)).result?.serverInfo).toBeDefined();
    s.send({ method: "notifications/initialized" });
    s.send({ id: 1, method: "tools/list" }); // id 1 was answered: the client may use it again
    expect((await s.answer(1, 2)).result?.tools).toBeDefined();
    s.send({ id: 3, method: "ping" });
    expect((await s.answer(3)).result).toEqual({}); // without the fix: never (what followed initialize stayed held)
    await s.close();
    for (const a of recorded()) expect(a.method === "tools/list" ? a.result.includes('"serverInfo"') : false, a.result).toBe(false);
    expect(s.got.filter((m) => m.id === 1)).toHaveLength(2); // one answer per request, no third
  });

  it("a request using the id of the tools/list answered early gets its own answer, and only one", async () => {
    const s = serve();
    s.send({ id: 1, method: "initialize", params: INIT });
    await s.answer(1);
    s.send({ method: "notifications/initialized" });
    s.send({ id: 2, method: "tools/list" });
    await s.answer(2);
    s.send({ id: 2, method: "ping" }); // id 2 was answered: the client may use it again
    s.send({ id: 4, method: "ping" });
    await s.answer(4);
    await new Promise((r) => setTimeout(r, 500));
    expect(s.got.filter((m) => m.id === 2).map((m) => (m.result && "tools" in m.result ? "tools" : JSON.stringify(m.result)))).toEqual(["tools", "{}"]);
    await s.close();
  });
});
