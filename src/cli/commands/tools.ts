/**
 * `mcpbox tools [server...] [--json] [--call <tool> [<json-args>]]` (or `--args <json>`): the gateway in-process, linked to an SDK
 * client in memory; lists the tools a client would see, or calls one and prints its result. Exits when done.
 */
import { Client, InMemoryTransport, type CallToolResult, type Tool } from "@modelcontextprotocol/client";
import type { Context } from "../context.ts";
import { displayPath, loadConfig } from "../../config/load.ts";
import { formatProblem } from "../../config/problems.ts";
import { McpboxError, messageOf } from "../../errors.ts";
import { createGateway } from "../../gateway/start.ts";
import { auditValue, type Redact } from "../../gateway/redact.ts";
import type { Gateway } from "../../gateway/gateway.ts";
import { terminalLine, terminalText } from "../../text/terminal.ts";
import { VERSION } from "../../version.ts";
import { err, out, paint, printJson } from "../output.ts";

export async function run(ctx: Context, positional: string[] = []): Promise<number> {
  // SPEC: `--call <tool> [<json-args>]`: a JSON object after the tool name is its arguments, not a server name
  const last = positional[positional.length - 1];
  const inlineArgs = typeof ctx.options.call === "string" && last?.trimStart().startsWith("{") ? last : undefined;
  const names = inlineArgs === undefined ? positional : positional.slice(0, -1);
  if (inlineArgs !== undefined && ctx.options.args !== undefined) {
    throw new McpboxError("usage", "give the call's arguments once: after --call <tool> or with --args");
  }
  const args = parseArgs(inlineArgs ?? ctx.options.args);
  const { file, config, warnings } = await loadConfig({ cwd: ctx.cwd, configPath: ctx.configPath });
  for (const w of warnings) err(`warning: ${formatProblem(displayPath(file, ctx.cwd), w)}`);
  // only what the user must know: failures, warnings, builds; not the servers' routine states or their stderr
  // a secret a server was given never reaches the terminal (hrev): its names, descriptions, answers, errors
  let redact: Redact = (s) => s;
  const quiet = (line: string) => {
    if (/^\S+: (starting|running|stopped|stopping)\b|^\[/.test(line)) return;
    const shown = `mcpbox: ${terminalLine(redact(line))}`;
    err(/^\S+: failed: /.test(line) ? paint.yellow(shown) : paint.dim(shown)); // a failure is told once, where it is seen
  };
  const { gateway } = await createGateway(config, names, quiet);
  redact = gateway.options.redact;
  const client = new Client({ name: "mcpbox-tools", version: VERSION });
  try {
    const [a, b] = InMemoryTransport.createLinkedPair();
    await gateway.connect(a);
    gateway.startEager();
    await client.connect(b);
    if (typeof ctx.options.call === "string") return await callOne(client, ctx.options.call, args, ctx.options.json === true, redact);
    const { tools } = await client.listTools();
    const failed = failedServers(gateway);
    printTools(gateway, tools, failed, ctx.options.json === true);
    return failed.length === 0 ? 0 : 1;
  } finally {
    await client.close().catch(() => {});
    await gateway.close();
  }
}

function parseArgs(raw: unknown): Record<string, unknown> {
  if (raw === undefined) return {};
  try {
    const v = JSON.parse(String(raw));
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new McpboxError("usage", "the arguments of --call must be a JSON object", {
    hint: `for example: mcpbox tools --call files__read_text_file '{"path": "/data/a.txt"}' (or --args '{"path": "/data/a.txt"}')`,
  });
}

async function callOne(client: Client, tool: string, args: Record<string, unknown>, json: boolean, redact: Redact): Promise<number> {
  let result: CallToolResult;
  try {
    result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  } catch (e) {
    // the gateway's words (its errors name the tool or server already); the SDK (v2) puts no "MCP error <code>: " before them
    const why = terminalLine(redact(messageOf(e)));
    throw new McpboxError("failed", why.includes(tool) ? why : `calling ${tool} failed: ${why}`, { hint: "run `mcpbox tools` to see the tool names" });
  }
  if (json) printJson(shown(result, redact));
  // the server's answer is shown as text; --json gives it exactly (escaped), secrets hidden either way
  else for (const c of result.content ?? []) out(c.type === "text" ? terminalText(redact(c.text)) : terminalLine(redact(JSON.stringify(c))));
  return result.isError ? 1 : 0;
}

interface FailedServer {
  server: string;
  image?: string;
  error: string;
}

/** Servers that could not start (a lazy one listed from the cache is idle, not failed); their failure was printed once. */
function failedServers(gateway: Gateway): FailedServer[] {
  return [...gateway.upstreams.values()]
    .filter((u) => u.state === "failed" || u.state === "restarting")
    .map((u) => ({
      server: u.name,
      ...(u.server.source.kind === "image" ? { image: u.server.source.image } : {}),
      error: gateway.options.redact(u.lastError ?? u.state),
    }));
}

function printTools(gateway: Gateway, tools: Tool[], failed: FailedServer[], json: boolean): void {
  const rows = tools.map((t) => {
    const route = gateway.catalog.toolRoutes.get(t.name);
    return { server: route?.server ?? "", name: t.name, description: firstLine(t.description ?? "") };
  });
  const redact = gateway.options.redact;
  if (json) {
    const doc = { tools: rows.map((r, i) => ({ ...r, tool: gateway.catalog.toolRoutes.get(tools[i]!.name)?.name, inputSchema: tools[i]!.inputSchema })), failed };
    printJson(shown(doc, redact));
    return;
  }
  if (rows.length === 0) return void out(failed.length > 0 ? "no tools (see the failures above)" : "no tools");
  // names and descriptions are the servers' words: one line each, no escapes
  const cells = rows.map((r) => ({ server: terminalLine(r.server), name: terminalLine(redact(r.name)), description: terminalLine(redact(r.description)) }));
  const w1 = Math.max(6, ...cells.map((r) => r.server.length));
  const w2 = Math.max(4, ...cells.map((r) => r.name.length));
  const width = process.stdout.columns ?? 120;
  out(paint.bold(`${"SERVER".padEnd(w1)}  ${"TOOL".padEnd(w2)}  DESCRIPTION`));
  for (const r of cells) {
    const line = `${r.server.padEnd(w1)}  ${r.name.padEnd(w2)}  ${r.description}`;
    out(process.stdout.isTTY && line.length > width ? `${line.slice(0, width - 1)}…` : line);
  }
}

const firstLine = (s: string) => s.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";

/** A JSON document with every secret value hidden in its strings and keys (nothing cut); as it is when none is in it. */
function shown<T>(doc: T, redact: Redact): T {
  const text = JSON.stringify(doc);
  return redact(text) === text ? doc : (auditValue(doc, redact, Number.MAX_SAFE_INTEGER) as T);
}
