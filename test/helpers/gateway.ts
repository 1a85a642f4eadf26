/** Running `mcpbox serve` as a real MCP client does: the SDK Client over stdio, spawning the gateway. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema, type ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { engine } from "../../src/docker/engine.ts";
import { LABEL } from "../../src/policy/labels.ts";
import { nodeBaseImage } from "./images.ts";

export const REPO = path.resolve(import.meta.dirname, "../..");
export const FIXTURES = path.join(REPO, "test/fixtures/gateway");

/** dist/mcpbox (what npm test builds), or the sources when MCPBOX_TEST_FROM_SOURCE is set (while developing). */
export function mcpboxCommand(): { command: string; args: string[] } {
  if (process.env.MCPBOX_TEST_FROM_SOURCE) {
    return { command: path.join(REPO, "node_modules/.bin/node"), args: [path.join(REPO, "src/cli/main.ts")] };
  }
  return { command: path.join(REPO, "dist/mcpbox"), args: [] };
}

export interface TestProject {
  dir: string;
  home: string;
  config: string;
}

/** A temporary folder with sandbox.config.json and a private MCPBOX_HOME. */
export function project(servers: Record<string, unknown>, extra: Record<string, unknown> = {}): TestProject {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-gw-e2e-"));
  fs.chmodSync(dir, 0o755);
  const config = path.join(dir, "sandbox.config.json");
  fs.writeFileSync(config, JSON.stringify({ servers, ...extra }, null, 2));
  return { dir, home: path.join(dir, ".mcpbox"), config };
}

export interface Connected {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  stderr: () => string;
}

export async function connect(
  p: TestProject,
  options: { capabilities?: ClientCapabilities; args?: string[]; env?: Record<string, string>; setup?: (c: Client) => void } = {},
): Promise<Connected> {
  const { command, args } = mcpboxCommand();
  const transport = new StdioClientTransport({
    command,
    args: [...args, "serve", "-c", p.config, ...(options.args ?? [])],
    env: { ...(process.env as Record<string, string>), MCPBOX_HOME: p.home, NO_COLOR: "1", ...options.env },
    stderr: "pipe",
    cwd: p.dir,
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "e2e", version: "1" }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  await client.connect(transport);
  return { client, transport, pid: transport.pid!, stderr: () => stderr };
}

/** Containers (running or not) whose owner is this gateway process. */
export async function containersOf(pid: number) {
  return engine().listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.ownerPid}=${pid}`] }) });
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * One serve of `p`: connected (its list_changed notifications counted), `body` run with the time of the spawn, then
 * closed and its containers gone.
 */
export async function serveOnce<T>(
  p: TestProject,
  body: (gw: Connected, changes: () => number, t0: number) => Promise<T>,
  options: { env?: Record<string, string> } = {},
): Promise<T> {
  let changes = 0;
  const t0 = Date.now();
  const gw = await connect(p, { ...options, setup: (c) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++) });
  try {
    return await body(gw, () => changes, t0);
  } finally {
    await gw.client.close().catch(() => {});
    await waitFor("the gateway's containers removed", async () => ((await containersOf(gw.pid)).length === 0 ? true : undefined), 30_000);
  }
}

/**
 * A project of one server `slow` (the raw-server fixture) that sleeps `sleepS` seconds before it speaks, on the node
 * base image tagged `<repo>:e2e-<pid>` for this run, so "before it is up" is seconds, not a race. remove() takes both away.
 */
export async function slowServerProject(repo: string, sleepS: number): Promise<{ p: TestProject; tag: string; remove(): Promise<void> }> {
  const tag = `${repo}:e2e-${process.pid}`;
  await engine().getImage(await nodeBaseImage()).tag({ repo, tag: `e2e-${process.pid}` });
  const p = project({
    slow: {
      image: tag,
      command: ["sh", "-c", `sleep ${sleepS}; exec node /fixture/raw-server.mjs`],
      mounts: [{ source: FIXTURES, target: "/fixture" }],
      timeouts: { startupMs: 60_000 },
    },
  });
  const remove = async () => {
    await engine().getImage(tag).remove({ force: true }).catch(() => {});
    fs.rmSync(p.dir, { recursive: true, force: true });
  };
  return { p, tag, remove };
}

/** Every audit line written under this project's MCPBOX_HOME. */
export function auditLines(p: TestProject): Record<string, unknown>[] {
  const dir = path.join(p.home, "audit");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .flatMap((f) => fs.readFileSync(path.join(dir, f), "utf8").split("\n"))
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}
