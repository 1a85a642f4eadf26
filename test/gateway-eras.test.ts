/**
 * Both protocol revisions through `mcpbox serve` and real containers (SPEC 4.8): a 2026-07-28 client (raw JSON-RPC
 * lines, then the SDK v2 Client) in front of server-everything (SDK v1, 2025-11-25) and of a 2026-07-28 server
 * (test/fixtures/modern, SDK v2); and a 2025-11-25 client in front of that modern server.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { ensureTestImage } from "./helpers/images.ts";
import { connect, mcpboxCommand, project, REPO, type Connected, type TestProject } from "./helpers/gateway.ts";

const FIXTURE = path.join(REPO, "test/fixtures/modern");
const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content ?? "");
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw-modern", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { sampling: {}, elicitation: { form: {} }, roots: {} },
};

let context: string;
let everything: string;

/** The fixture as a `build:` context: its Dockerfile and an esbuild bundle of server.ts (no node_modules in the image). */
async function fixtureContext(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-modern-fixture-"));
  fs.chmodSync(dir, 0o755);
  fs.copyFileSync(path.join(FIXTURE, "Dockerfile"), path.join(dir, "Dockerfile"));
  await build({
    entryPoints: [path.join(FIXTURE, "server.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: path.join(dir, "server.mjs"),
    logLevel: "error",
    banner: { js: 'import { createRequire as __req } from "node:module"; const require = __req(import.meta.url);' },
  });
  return dir;
}

const modernServer = (extra: Record<string, unknown> = {}) => ({ build: { context }, timeouts: { startupMs: 120_000, callMs: 60_000 }, ...extra });

beforeAll(async () => {
  context = await fixtureContext();
  everything = await ensureTestImage("mcpbox-test/everything:latest");
}, 300_000);

afterAll(() => {
  fs.rmSync(context, { recursive: true, force: true });
});

/** `mcpbox serve` spoken to in raw JSON-RPC lines, as a 2026-07-28 client writes them. */
class RawClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly #waiting = new Map<string | number, (m: Record<string, unknown>) => void>();
  stderr = "";

  constructor(p: TestProject) {
    const { command, args } = mcpboxCommand();
    this.child = spawn(command, [...args, "serve", "-c", p.config], {
      env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" },
      cwd: p.dir,
    });
    this.child.stderr.on("data", (d: Buffer) => (this.stderr += d.toString()));
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => {
      const m = JSON.parse(line) as Record<string, unknown>;
      const id = m.id as string | number | undefined;
      if (id !== undefined && !("method" in m)) this.#waiting.get(id)?.(m);
    });
  }

  request(id: number, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const answer = new Promise<Record<string, unknown>>((resolve) => this.#waiting.set(id, resolve));
    const meta = { ...ENVELOPE, ...((params._meta as object | undefined) ?? {}) };
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } })}\n`);
    return answer;
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.stdin.end();
    await exited;
  }
}

describe("a 2026-07-28 client in front of a 2025-11-25 server and a 2026-07-28 one", () => {
  let p: TestProject;
  let raw: RawClient;

  beforeAll(async () => {
    p = project({ ev: { image: everything, clientRequests: { sampling: true } }, mf: modernServer() });
    raw = new RawClient(p);
  }, 300_000);

  afterAll(async () => {
    await raw?.close();
  });

  it("is discovered without initialize, and says who it is on every answer", async () => {
    const discover = await raw.request(1, "server/discover");
    const result = discover.result as Record<string, unknown>;
    expect(result.supportedVersions).toContain("2026-07-28");
    expect(result).toMatchObject({ resultType: "complete", capabilities: { tools: {} }, _meta: { "io.modelcontextprotocol/serverInfo": { name: "mcpbox" } } });
  }, 180_000);

  it("lists both servers' tools with the cache hint of the aggregate: the shortest, private if any part is", async () => {
    const list = (await raw.request(2, "tools/list")).result as { tools: { name: string }[]; ttlMs: number; cacheScope: string; resultType: string };
    const names = list.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["ev__echo", "mf__ask-name"]));
    // mf says 60 s public; server-everything (2025-11-25) says nothing, which is 0 ms, private
    expect(list).toMatchObject({ ttlMs: 0, cacheScope: "private", resultType: "complete" });
  });

  it("turns a 2025-11-25 server's sampling request into input_required, and the retry's answer back into its result", async () => {
    const first = (await raw.request(3, "tools/call", { name: "ev__trigger-sampling-request", arguments: { prompt: "x", maxTokens: 5 } })).result as {
      resultType: string;
      inputRequests: Record<string, { method: string; params: { systemPrompt?: string; includeContext?: string } }>;
      requestState: string;
    };
    expect(first.resultType).toBe("input_required");
    const [key, ask] = Object.entries(first.inputRequests)[0]!;
    expect(ask.method).toBe("sampling/createMessage");
    expect(ask.params.systemPrompt).toContain('the MCP server "ev"'); // SPEC 9: names its server
    expect(ask.params.includeContext).toBe("none");
    // a forged or foreign requestState finds nothing
    const forged = await raw.request(4, "tools/call", { name: "ev__trigger-sampling-request", arguments: { prompt: "x", maxTokens: 5 }, inputResponses: {}, requestState: "mcpbox-rt-forged" });
    expect(forged.error).toMatchObject({ code: -32602 });
    const retry = await raw.request(5, "tools/call", {
      name: "ev__trigger-sampling-request",
      arguments: { prompt: "x", maxTokens: 5 },
      inputResponses: { [key]: { role: "assistant", content: { type: "text", text: "sampled in a round trip" }, model: "m" } },
      requestState: first.requestState,
    });
    expect(retry.result).toMatchObject({ resultType: "complete" });
    expect(text(retry.result)).toContain("sampled in a round trip");
  });
});

describe("the SDK v2 Client, 2026-07-28, through mcpbox serve", () => {
  let p: TestProject;
  let client: ModernClient;
  let asked: string[] = [];

  beforeAll(async () => {
    p = project({ ev: { image: everything, mounts: [{ source: "./shared", target: "/data" }], approve: ["get-sum"] }, mf: modernServer() });
    fs.mkdirSync(path.join(p.dir, "shared/sub"), { recursive: true });
    const { command, args } = mcpboxCommand();
    const transport = new ModernStdioClientTransport({
      command,
      args: [...args, "serve", "-c", p.config],
      env: { ...(process.env as Record<string, string>), MCPBOX_HOME: p.home, NO_COLOR: "1" },
      cwd: p.dir,
      stderr: "ignore",
    });
    client = new ModernClient({ name: "modern", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: { form: {} }, roots: {} } });
    client.setRequestHandler("elicitation/create", async (r) => {
      asked.push(String(r.params.message));
      const content: Record<string, string | number | boolean> = String(r.params.message).startsWith("mcpbox:")
        ? { approve: true }
        : { name: "Ann", check: true, color: "blue", email: "a@b.c", number: 3, integer: 3 };
      return { action: "accept" as const, content };
    });
    client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: `file://${p.dir}/shared/sub`, name: "sub" }, { uri: "file:///etc", name: "etc" }] }));
    await client.connect(transport);
  }, 300_000);

  afterAll(async () => {
    await client?.close();
  });

  it("negotiates 2026-07-28 and gets a legacy server's elicitation and roots in round trips", async () => {
    expect(client.getProtocolEra()).toBe("modern");
    const elicited = await client.callTool({ name: "ev__trigger-elicitation-request", arguments: {} });
    expect(text(elicited)).toContain("Ann");
    expect(asked.some((m) => m.startsWith('Server "ev" asks:'))).toBe(true); // SPEC 9: names its server
    const roots = await client.callTool({ name: "ev__get-roots-list", arguments: {} });
    expect(text(roots)).toContain("file:///data/sub");
    expect(text(roots)).not.toContain("/etc");
    expect(text(roots)).not.toContain(p.dir);
  });

  it("asks for an approval in a round trip (SPEC 4.4) and runs the call with the arguments shown", async () => {
    asked = [];
    const r = await client.callTool({ name: "ev__get-sum", arguments: { a: 20, b: 22 } });
    expect(text(r)).toContain("42");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("get-sum");
  });

  it("passes traceparent, tracestate and baggage to the server in _meta", async () => {
    const trace = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "v=1", baggage: "k=v" };
    const r = await client.callTool({ name: "mf__meta", arguments: {}, _meta: trace });
    expect(JSON.parse(JSON.parse(text(r))[0].text)).toMatchObject(trace);
  });
});

describe("a 2025-11-25 client in front of a 2026-07-28 server (prefix: false)", () => {
  let p: TestProject;
  let gw: Connected;
  const logs: { logger?: string; data?: unknown }[] = [];

  beforeAll(async () => {
    p = project({ mf: modernServer({ prefix: false, mounts: [{ source: "./shared", target: "/data" }], clientRequests: { sampling: true } }) });
    fs.mkdirSync(path.join(p.dir, "shared/sub"), { recursive: true });
    gw = await connect(p, {
      capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
      setup(c) {
        c.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Cy" } }));
        c.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: "seven" }, model: "m" }));
        c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file://${p.dir}/shared/sub`, name: "sub" }, { uri: "file:///etc" }] }));
        c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
      },
    });
  }, 300_000);

  afterAll(async () => {
    await gw?.client.close();
  });

  it("shows the server's own serverInfo, its logger names and its 2020-12 schema as written", async () => {
    expect(gw.client.getServerVersion()).toMatchObject({ name: "modern-fixture" });
    await gw.client.callTool({ name: "log", arguments: {} });
    for (let i = 0; i < 100 && logs.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(logs).toContainEqual(expect.objectContaining({ logger: "fixture-logger" }));
    const greet = (await gw.client.listTools()).tools.find((t) => t.name === "greet")!;
    expect(greet.inputSchema).toMatchObject({ $defs: { name: { type: "string", minLength: 1 } }, properties: { who: { $ref: "#/$defs/name" } } });
  });

  it("speaks 2026-07-28 to the server in its container (probed, server/discover), with this client's capabilities", async () => {
    const said = JSON.parse(JSON.parse(text(await gw.client.callTool({ name: "era", arguments: {} })))[0].text) as { revision: string; capabilities: Record<string, unknown> };
    expect(said.revision).toBe("2026-07-28");
    expect(Object.keys(said.capabilities).sort()).toEqual(["elicitation", "roots", "sampling"]);
  });

  it("gets the modern server's input_required questions as real requests (elicitation, sampling, translated roots)", async () => {
    expect(text(await gw.client.callTool({ name: "ask-name", arguments: {} }))).toContain("hello Cy");
    expect(text(await gw.client.callTool({ name: "sample", arguments: {} }))).toContain("the model said seven");
    const roots = text(await gw.client.callTool({ name: "roots", arguments: {} }));
    expect(roots).toContain("file:///data/sub");
    expect(roots).not.toContain("/etc");
  });
});

describe("a 2026-07-28 client over mcpbox serve --http, every request a session of its own (round trips across them)", () => {
  let p: TestProject;
  let child: ChildProcessWithoutNullStreams;
  let url: string;
  let id = 0;

  /** One raw 2026-07-28 request, its answer (plain JSON or the last event of an SSE stream). */
  async function post(method: string, params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
    const name = typeof params.name === "string" ? { "Mcp-Name": params.name } : {};
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "Mcp-Method": method, ...name },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: { ...params, _meta: ENVELOPE } }),
    });
    const body = await response.text();
    const line = body.split("\n").reverse().find((l) => l.startsWith("data:"));
    return JSON.parse(line ? line.slice(5) : body);
  }

  beforeAll(async () => {
    p = project({ mf: modernServer({ prefix: false, clientRequests: { sampling: true } }) });
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const { command, args } = mcpboxCommand();
    child = spawn(command, [...args, "serve", "-c", p.config, "--http", `127.0.0.1:${port}`, "--allow-unauthenticated"], {
      cwd: p.dir,
      env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" },
    });
    let stderr = "";
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes("serving on stdio")) resolve(); // the server is up: its calls take the raw route
      });
      child.once("exit", (code) => reject(new Error(`mcpbox serve --http exited (${code}):\n${stderr}`)));
    });
    url = `http://127.0.0.1:${port}/mcp`;
  }, 180_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    if (p) fs.rmSync(p.dir, { recursive: true, force: true });
  });

  it("finishes a running server's round trip in the retry, after the request that started it has ended", async () => {
    expect(JSON.stringify(await post("tools/call", { name: "meta", arguments: {} }))).toContain("content");
    const first = await post("tools/call", { name: "ask-name", arguments: {} });
    expect(first.result?.resultType, JSON.stringify(first)).toBe("input_required");
    const [key] = Object.keys(first.result!.inputRequests as object);
    await new Promise((r) => setTimeout(r, 500)); // the person takes a moment; the first request's session has ended
    const retry = await post("tools/call", {
      name: "ask-name",
      arguments: {},
      requestState: first.result!.requestState,
      inputResponses: { [key!]: { action: "accept", content: { name: "Cy" } } },
    });
    expect(JSON.stringify(retry)).toContain("hello Cy");
  });

  it("gives a newer call its server's questions, not a call a client left parked", async () => {
    const left = await post("tools/call", { name: "ask-name", arguments: {} }); // never retried
    expect(left.result?.resultType).toBe("input_required");
    await new Promise((r) => setTimeout(r, 300));
    const next = await post("tools/call", { name: "sample", arguments: {} });
    expect(next.result?.resultType, JSON.stringify(next)).toBe("input_required");
    expect(JSON.stringify(next.result!.inputRequests)).toContain("sampling/createMessage");
  });
});
