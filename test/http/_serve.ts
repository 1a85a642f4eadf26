/** `mcpbox serve --http` as a child process, and MCP clients over Streamable HTTP to it (test/http). */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { mcpboxCommand, project, waitFor, type TestProject } from "../helpers/gateway.ts";

export const FIXTURE = path.join(import.meta.dirname, "fixtures");

/** A project whose one server `fix` is the HTTP fixture server, on `image` (`extra`: more of its settings). */
export function fixtureProject(image: string, extra: Record<string, unknown> = {}): TestProject {
  return project({ fix: { image, command: ["node", "/fixture/server.mjs"], mounts: [{ source: FIXTURE, target: "/fixture" }], ...extra } });
}

export interface Served {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  url: string;
  port: number;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcessWithoutNullStreams[] = [];

/** Kills what a test left running (afterEach). */
export function killServes(): void {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
}

/** Runs `mcpbox <args>` to its end (stdin closed). */
export async function mcpbox(p: TestProject, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { command, args: pre } = mcpboxCommand();
  const child = spawn(command, [...pre, ...args], { cwd: p.dir, env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1", ...env } });
  child.stdin.end();
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** `mcpbox serve -c <config> --http 127.0.0.1:0 ...`, once it says where it listens. */
export async function serveHttp(p: TestProject, extra: string[] = [], listen = "127.0.0.1:0"): Promise<Served> {
  const { command, args } = mcpboxCommand();
  const child = spawn(command, [...args, "serve", "-c", p.config, "--http", listen, ...extra], {
    cwd: p.dir,
    env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" },
  });
  children.push(child);
  child.stdin.end(); // stdin plays no part with --http: a closed one must not stop it
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const url = await waitFor("serve --http to listen", () => {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}:\n${stderr}`);
    return /serving (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
  }, 60_000);
  return { child, pid: child.pid!, url, port: Number(new URL(url).port), stderr: () => stderr, exited };
}

export function tokenOf(p: TestProject): string {
  return fs.readFileSync(path.join(p.home, "http-token"), "utf8").trim();
}

export interface HttpClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

export async function httpClient(
  url: string,
  token: string | undefined,
  options: { capabilities?: ClientCapabilities; setup?: (c: Client) => void; name?: string } = {},
): Promise<HttpClient> {
  const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: options.name ?? "http-e2e", version: "1" }, { capabilities: options.capabilities ?? {} });
  options.setup?.(client);
  await client.connect(transport);
  return { client, transport };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request to the loopback listener with exactly these headers (Host included), through node:http. */
export function raw(port: number, method: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: "/mcp", method, headers, setHost: false }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** Headers of a well-formed POST from a client on this machine. */
export function postHeaders(port: number, extra: Record<string, string> = {}): Record<string, string> {
  return { host: `127.0.0.1:${port}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...extra };
}
