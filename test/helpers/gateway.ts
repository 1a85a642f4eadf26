/** Running `mcpbox serve` as a real MCP client does: the SDK Client over stdio, spawning the gateway. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { engine } from "../../src/docker/engine.ts";
import { LABEL } from "../../src/policy/labels.ts";

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
