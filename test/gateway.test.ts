/**
 * `mcpbox serve` end to end: the SDK client spawns the gateway over stdio; the gateway runs server-everything,
 * server-filesystem and a raw test server in real containers. One test per gateway feature (SPEC 4).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type LoggingMessageNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { engine } from "../src/docker/engine.ts";
import { LABEL } from "../src/policy/labels.ts";
import { ensureTestImage, nodeBaseImage } from "./helpers/images.ts";
import { auditLines, connect, containersOf, FIXTURES, project, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";

let p: TestProject;
let gw: Connected;
const logs: LoggingMessageNotification["params"][] = [];
const updated: string[] = [];
let toolListChanged = 0;
const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content ?? "");

beforeAll(async () => {
  const [everything, filesystem, node] = [
    await ensureTestImage("mcpbox-test/everything:latest"),
    await ensureTestImage("mcpbox-test/filesystem:latest"),
    await nodeBaseImage(),
  ];
  p = project({
    ev: { image: everything, mounts: [{ source: "./shared", target: "/data" }], tools: { deny: ["get-env"] }, approve: ["get-sum"], clientRequests: { sampling: true } },
    fs: { image: filesystem, args: ["/data"], mounts: [{ source: "./files", target: "/data" }] },
    raw: { image: node, command: ["node", "/fixture/raw-server.mjs"], mounts: [{ source: FIXTURES, target: "/fixture" }] },
  });
  fs.mkdirSync(path.join(p.dir, "shared/sub"), { recursive: true });
  fs.mkdirSync(path.join(p.dir, "files"));
  fs.writeFileSync(path.join(p.dir, "files/hello.txt"), "hello from the host\n");
  fs.writeFileSync(p.config, fs.readFileSync(p.config, "utf8")); // written by project(); the folders exist now
  gw = await connect(p, {
    capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
    setup(c) {
      c.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: "sampled by the test client" }, model: "test" }));
      c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { approve: true, name: "Ann", check: true, color: "blue", email: "a@b.c", number: 3, integer: 3 } }));
      c.setRequestHandler(ListRootsRequestSchema, async () => ({
        roots: [
          { uri: `file://${p.dir}/shared/sub`, name: "sub" },
          { uri: `file://${p.dir}/files`, name: "files" },
          { uri: "file:///etc", name: "etc" },
        ],
      }));
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
      c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
      c.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolListChanged++);
    },
  });
});

afterAll(async () => {
  await gw?.client.close();
});

describe("mcpbox serve", () => {
  it("lists tools, prompts and resources of every server under prefixes", async () => {
    const tools = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["ev__echo", "fs__read_text_file", "fs__write_file", "raw__flood"]));
    for (const t of tools) expect(t).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const prompts = (await gw.client.listPrompts()).prompts.map((x) => x.name);
    expect(prompts).toContain("ev__simple-prompt");
    const { resources } = await gw.client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const read = await gw.client.readResource({ uri: resources[0]!.uri });
    expect(read.contents[0]!.uri).toBe(resources[0]!.uri);
    const prompt = await gw.client.getPrompt({ name: "ev__simple-prompt" });
    expect(prompt.messages.length).toBeGreaterThan(0);
  });

  it("routes calls to the owning server", async () => {
    expect(text(await gw.client.callTool({ name: "ev__echo", arguments: { message: "routed" } }))).toContain("routed");
    expect(text(await gw.client.callTool({ name: "raw__echo", arguments: { text: "raw routed" } }))).toContain("raw routed");
  });

  it("forwards sampling and elicitation requests to the client and back", async () => {
    const s = await gw.client.callTool({ name: "ev__trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 5 } });
    expect(text(s)).toContain("sampled by the test client");
    const e = await gw.client.callTool({ name: "ev__trigger-elicitation-request", arguments: {} });
    expect(text(e)).toContain("Ann");
  });

  it("asks a person before an approve tool runs", async () => {
    const r = await gw.client.callTool({ name: "ev__get-sum", arguments: { a: 2, b: 3 } });
    expect(text(r)).toContain("5");
  });

  it("forwards progress notifications to the request that asked", async () => {
    const seen: number[] = [];
    const r = await gw.client.callTool({ name: "ev__trigger-long-running-operation", arguments: { duration: 1, steps: 4 } }, undefined, {
      onprogress: (x) => void seen.push(x.progress),
    });
    expect(r.isError).toBeFalsy();
    // the SDK client itself may drop a last notification read together with the response: not the gateway's doing
    expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it("passes cancellation on and audits it", async () => {
    const ac = new AbortController();
    const call = gw.client.callTool({ name: "ev__trigger-long-running-operation", arguments: { duration: 60, steps: 60 } }, undefined, {
      signal: ac.signal,
      onprogress: () => ac.abort("test cancels"),
    });
    await expect(call).rejects.toThrow();
    await waitFor("a cancelled audit line", () => auditLines(p).find((l) => l.outcome === "cancelled" && l.tool === "trigger-long-running-operation"));
    expect(text(await gw.client.callTool({ name: "ev__echo", arguments: { message: "still here" } }))).toContain("still here");
  });

  it("passes the cancel of a call without progress (the fast lane) on and audits it", async () => {
    const ac = new AbortController();
    const call = gw.client.callTool({ name: "ev__trigger-long-running-operation", arguments: { duration: 59, steps: 2 } }, undefined, { signal: ac.signal });
    setTimeout(() => ac.abort("test cancels"), 500);
    await expect(call).rejects.toThrow();
    const line = await waitFor("a cancelled audit line", () =>
      auditLines(p).find((l) => l.outcome === "cancelled" && (l.arguments as { duration?: number } | undefined)?.duration === 59),
    );
    expect(line).toMatchObject({ server: "ev", tool: "trigger-long-running-operation", method: "tools/call" });
    expect(text(await gw.client.callTool({ name: "ev__echo", arguments: { message: "after a cancel" } }))).toContain("after a cancel");
  });

  it("re-lists and tells the client when a server's tools change", async () => {
    const before = toolListChanged;
    await gw.client.callTool({ name: "raw__add_tool", arguments: {} });
    await waitFor("tools/list_changed", () => toolListChanged > before);
    const tools = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(tools.some((t) => /^raw__extra_\d+$/.test(t))).toBe(true);
  });

  it("forwards log messages with the server's name and fans out logging/setLevel", async () => {
    await gw.client.setLoggingLevel("debug");
    await gw.client.callTool({ name: "ev__toggle-simulated-logging", arguments: {} });
    const msg = await waitFor("a log message", () => logs.find((l) => String(l.logger ?? "").startsWith("ev")));
    expect(msg.logger).toMatch(/^ev(\/|$)/);
    await gw.client.setLoggingLevel("emergency");
    const from = logs.length;
    await new Promise((r) => setTimeout(r, 6000)); // the server logs every 5 s
    await gw.client.callTool({ name: "ev__toggle-simulated-logging", arguments: {} });
    expect(logs.slice(from).filter((l) => l.level !== "emergency")).toEqual([]);
  });

  it("routes resource subscriptions and forwards updates", async () => {
    const { resources } = await gw.client.listResources();
    const uri = resources[0]!.uri;
    await gw.client.subscribeResource({ uri });
    await gw.client.callTool({ name: "ev__toggle-subscriber-updates", arguments: {} });
    await waitFor("resources/updated", () => updated.includes(uri), 15_000);
    await gw.client.unsubscribeResource({ uri });
    await gw.client.callTool({ name: "ev__toggle-subscriber-updates", arguments: {} });
  });

  it("translates the client's roots into mount targets", async () => {
    const r = text(await gw.client.callTool({ name: "ev__get-roots-list", arguments: {} }));
    expect(r).toContain("file:///data/sub");
    expect(r).not.toContain(p.dir);
    expect(r).not.toContain("/etc");
    const dirs = text(await gw.client.callTool({ name: "fs__list_allowed_directories", arguments: {} }));
    expect(dirs).toContain("/data");
    expect(dirs).not.toContain(p.dir);
  });

  it("hides denied tools and refuses calls to them", async () => {
    const tools = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(tools).not.toContain("ev__get-env");
    const r = await gw.client.callTool({ name: "ev__get-env", arguments: {} });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("not allowed");
    await waitFor("the denied audit line", () => auditLines(p).find((l) => l.tool === "get-env" && l.outcome === "denied"));
  });

  it("runs each server in one container with the hardened policy", async () => {
    const list = await containersOf(gw.pid);
    expect(list.map((c) => c.Labels[LABEL.server]).sort()).toEqual(["ev", "fs", "raw"]);
    for (const c of list) {
      const info = await engine().getContainer(c.Id).inspect();
      const h = info.HostConfig;
      expect(info.Config.User).toBe("1000:1000");
      expect(h.ReadonlyRootfs).toBe(true);
      expect(h.CapDrop).toEqual(["ALL"]);
      expect(h.SecurityOpt).toContain("no-new-privileges:true");
      expect(h.NetworkMode).toBe("none");
      expect(h.Memory).toBe(512 * 1024 * 1024);
      expect(h.MemorySwap).toBe(512 * 1024 * 1024);
      expect(h.PidsLimit).toBe(256);
      expect(h.Init).toBe(true);
      expect(info.Config.Tty).toBe(false);
      expect(info.Config.Labels[LABEL.managed]).toBe("true");
      expect(info.Config.Labels[LABEL.ownerPid]).toBe(String(gw.pid));
      expect(info.Config.Labels[LABEL.session]).toMatch(/^[0-9a-f]{8}$/);
      expect(info.Config.Labels[LABEL.configHash]).toMatch(/^[0-9a-f]{12}$/);
      for (const m of info.Mounts.filter((x) => x.Type === "bind")) expect(m.RW).toBe(false);
    }
  });

  it("reads a read-only mount, cannot write to it, and refuses ../ escapes before the container", async () => {
    const read = await gw.client.callTool({ name: "fs__read_text_file", arguments: { path: "/data/hello.txt" } });
    expect(text(read)).toContain("hello from the host");
    const write = await gw.client.callTool({ name: "fs__write_file", arguments: { path: "/data/new.txt", content: "x" } });
    expect(write.isError).toBe(true);
    expect(fs.existsSync(path.join(p.dir, "files/new.txt"))).toBe(false);
    const escape = await gw.client.callTool({ name: "fs__read_text_file", arguments: { path: "/data/../etc/passwd" } });
    expect(escape.isError).toBe(true);
    expect(text(escape)).toContain("outside the folders");
    const line = await waitFor("the denied audit line", () => auditLines(p).find((l) => l.server === "fs" && l.outcome === "denied"));
    expect(line).toMatchObject({ tool: "read_text_file", arguments: { path: "/data/../etc/passwd" } });
  });

  it("survives garbage on its stdin and a server flooding stdout with non-JSON", async () => {
    const child = (gw.transport as unknown as { _process: { stdin: NodeJS.WritableStream } })._process;
    child.stdin.write("this is not json\n{\"half\": \n\n[1,2,3]\n");
    child.stdin.write(`{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"x":"${"x".repeat(17 << 20)}"}}\n`); // over the 16 MiB cap
    const flood = await gw.client.callTool({ name: "raw__flood", arguments: { lines: 20000 } });
    expect(text(flood)).toContain("flooded 20000");
    expect(text(await gw.client.callTool({ name: "raw__echo", arguments: { text: "after flood" } }))).toContain("after flood");
    expect(text(await gw.client.callTool({ name: "ev__echo", arguments: { message: "after garbage" } }))).toContain("after garbage");
    expect(gw.stderr()).toContain("non-JSON");
  });

  it("writes one audit line per call with the fields of SPEC 4.7", async () => {
    const line = await waitFor("the echo audit line", () => auditLines(p).find((l) => l.tool === "echo" && l.server === "raw"));
    expect(line).toMatchObject({ session: expect.stringMatching(/^[0-9a-f]{8}$/), method: "tools/call", outcome: "ok", arguments: { text: "raw routed" } });
    expect(typeof line!.durationMs).toBe("number");
    expect(line!.bytes as number).toBeGreaterThan(0);
    expect(Date.parse(String(line!.time))).not.toBeNaN();
  });
});
