/**
 * One server's problem stays that server's (SPEC 4.2, 4.5): a secret whose variable is not set and a build that
 * fails take down only their own server. The gateway answers with the others; the client reads why the missing ones
 * are missing (the initialize instructions and an error log message from "mcpbox"), `tools --json` carries each
 * failure, stderr says each once, and no secret value appears anywhere. Errors name an unknown tool once.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { nodeBaseImage } from "./helpers/images.ts";
import { connect, FIXTURES, mcpboxCommand, project, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";

const UNSET = "MCPBOX_TEST_UNSET_TOKEN";
const SET = "MCPBOX_TEST_SET_TOKEN";
const SECRET = "s3cr3t-e2e-value-9f1c";
const env = { [SET]: SECRET };
const GH_WHY = `secret TOKEN needs the environment variable ${UNSET}, which is not set`;

let p: TestProject;

beforeAll(async () => {
  delete process.env[UNSET];
  const node = await nodeBaseImage();
  const raw = { image: node, command: ["node", "/fixture/raw-server.mjs"], mounts: [{ source: FIXTURES, target: "/fixture" }] };
  p = project({
    ok: raw,
    gh: { ...raw, secrets: { TOKEN: { env: UNSET }, OTHER: { env: SET } } },
    broken: { build: { context: "./broken" } },
  });
  fs.mkdirSync(path.join(p.dir, "broken"), { mode: 0o755 });
  fs.writeFileSync(path.join(p.dir, "broken/Dockerfile"), `FROM ${node}\nRUN echo the step that fails && exit 3\n`);
});

afterAll(() => fs.rmSync(p.dir, { recursive: true, force: true }));

const count = (text: string, part: string) => text.split(part).length - 1;

function mcpbox(args: string[]) {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args, "-c", p.config], {
    cwd: p.dir,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, ...env, NO_COLOR: "1", MCPBOX_HOME: p.home },
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("a server that cannot start beside a healthy one", () => {
  let gw: Connected;
  const logs: { level: string; logger?: string; data: unknown }[] = [];

  beforeAll(async () => {
    gw = await connect(p, { env, setup: (c) => c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params)) });
  });
  afterAll(async () => {
    await gw?.client.close();
  });

  it("serves the healthy one", async () => {
    const r = await gw.client.callTool({ name: "ok__echo", arguments: { text: "still answering" } });
    expect(JSON.stringify(r.content)).toContain("still answering");
    const names = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("ok__echo");
    expect(names.filter((n) => !n.startsWith("ok__"))).toEqual([]);
  });

  it("tells the client why the others are missing: instructions and an error log message, naming the variable to set", async () => {
    const instructions = gw.client.getInstructions() ?? "";
    expect(instructions).toContain(`- server gh is not available: ${GH_WHY}; fix: set ${UNSET} where mcpbox is started`);
    expect(instructions).toMatch(/- server broken is not available: .*exit(ed with)? (code )?3/);
    const fromMcpbox = () => logs.filter((l) => l.logger === "mcpbox" && l.level === "error").map((l) => String(l.data));
    await waitFor("the log messages", () => (fromMcpbox().length >= 2 ? true : undefined));
    expect(fromMcpbox().filter((l) => l.startsWith(`server gh is not available: ${GH_WHY}`))).toHaveLength(1);
    expect(fromMcpbox().filter((l) => l.startsWith("server broken is not available: "))).toHaveLength(1);
  });

  it("says each failure once on stderr, however often it is retried", async () => {
    for (let i = 0; i < 3; i++) await gw.client.listTools();
    expect(count(gw.stderr(), `mcpbox: gh: failed: ${GH_WHY}`), gw.stderr()).toBe(1);
    expect(count(gw.stderr(), "mcpbox: broken: failed: "), gw.stderr()).toBe(1);
    expect(count(gw.stderr(), "mcpbox: broken: building "), gw.stderr()).toBe(1); // not a build per tools/list
  });

  it("never shows a secret's value", () => {
    expect(JSON.stringify([gw.client.getInstructions(), logs, gw.stderr()])).not.toContain(SECRET);
  });

  it("names an unknown tool once (one SDK prefix, the gateway's words)", async () => {
    await expect(gw.client.callTool({ name: "ok__nope", arguments: {} })).rejects.toThrow(/^MCP error -32602: unknown tool: ok__nope$/);
  });
});

describe("tools", () => {
  it("--json carries each failed server with its error; stderr says each once", () => {
    const r = mcpbox(["tools", "--json"]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { tools: { name: string }[]; failed: { server: string; error: string }[] };
    expect(doc.tools.map((t) => t.name)).toContain("ok__echo");
    expect(doc.failed.map((f) => f.server).sort()).toEqual(["broken", "gh"]);
    expect(doc.failed.find((f) => f.server === "gh")!.error).toContain(`${GH_WHY}; fix: set ${UNSET}`);
    expect(count(r.stderr, `gh: failed: ${GH_WHY}`), r.stderr).toBe(1);
    expect(count(r.stderr, "broken: failed: "), r.stderr).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it("--call of an unknown tool names it once, with no protocol prefix", () => {
    const r = mcpbox(["tools", "ok", "--call", "ok__nope"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: unknown tool: ok__nope\n");
    expect(count(r.stderr, "ok__nope"), r.stderr).toBe(1);
    expect(r.stderr).not.toContain("MCP error");
  });
});
