/**
 * The built-in code runner (SPEC 7) as an in-process MCP server offering `run_code`: each run in a fresh hardened
 * container (from the pool when one is configured), removed afterwards; the exact code goes to the audit log.
 * At most pool.maxConcurrent runs at once, pool.maxQueued waiting (slots.ts).
 * The gateway connects a Client to it over InMemoryTransport like any other upstream (SDK v2 Server: it answers the
 * gateway's server/discover probe with -32601, so it is spoken to in the 2025-11-25 era, as before).
 */
import { Server } from "@modelcontextprotocol/server";
import type { ResolvedServer } from "../config/resolve.ts";
import type { Docker } from "../docker/engine.ts";
import { messageOf } from "../errors.ts";
import { VERSION } from "../version.ts";
import { RunnerPool } from "./pool.ts";
import { RunSlots, type Release } from "./slots.ts";
import { inputSchema, parseRequest, type RunRequest } from "./request.ts";
import { errorResult, OUTPUT_SCHEMA, toolResult } from "./result.ts";
import { runIn, type RunResult } from "./run.ts";

export const TOOL_NAME = "run_code";

/** How long a finished run's slot waits for its container's removal at most. */
const SLOT_REMOVAL_WAIT_MS = 10_000;

export interface CodeRunnerDeps {
  docker: Docker;
  session: string;
  configHash: string;
  ownerPid: number;
  /** the runtime image (ensureRunnerImage) */
  image: string;
  audit?: (entry: Record<string, unknown>) => void;
}

export function createCodeRunnerServer(server: ResolvedServer, deps: CodeRunnerDeps): Server {
  const mcp = new Server({ name: "mcpbox-code-runner", version: VERSION }, { capabilities: { tools: {} } });
  const pool = new RunnerPool(deps.docker, server, deps);
  const slots = new RunSlots(server.pool.maxConcurrent, server.pool.maxQueued, `servers.${server.name}.pool`);
  const running = new Set<Promise<unknown>>();
  let closing: Promise<void> | undefined;
  const shutdown = () => (closing ??= (async () => {
    slots.close();
    await pool.close();
    await Promise.allSettled([...running]);
  })());

  mcp.setRequestHandler("tools/list", async () => ({
    tools: [
      {
        name: TOOL_NAME,
        title: "Run code",
        description:
          `Runs a ${server.languages.join(", ")} program in a fresh, isolated container and returns its stdout, ` +
          `stderr and exit code. Limits: ${server.timeouts.runMs} ms wall clock, ${server.limits.memory} memory, ` +
          `network ${typeof server.network === "string" ? server.network : server.network.network}, ` +
          `output cut at ${server.maxOutputBytes} bytes per stream. Nothing persists between runs.`,
        inputSchema: inputSchema(server.languages),
        outputSchema: OUTPUT_SCHEMA,
      },
    ],
  }));

  mcp.setRequestHandler("tools/call", async (request, ctx) => {
    if (request.params.name !== TOOL_NAME) return errorResult(`unknown tool ${request.params.name}`);
    const req = parseRequest(request.params.arguments, server.languages);
    if ("error" in req) {
      const args = (request.params.arguments ?? {}) as { language?: unknown; code?: unknown };
      deps.audit?.({ tool: TOOL_NAME, language: args.language, code: args.code, files: [], outcome: "error", error: req.error });
      return errorResult(`run_code: ${req.error}`);
    }
    let release: Release;
    try {
      release = await slots.acquire(ctx.mcpReq.signal);
    } catch (e) {
      deps.audit?.({ tool: TOOL_NAME, language: req.language, code: req.code, files: Object.keys(req.files ?? {}), outcome: "error", error: messageOf(e) });
      return errorResult(`run_code: ${messageOf(e)}`);
    }
    const run = runOnce(pool, server, req, ctx.mcpReq.signal, release);
    running.add(run);
    try {
      const outcome = await run;
      audit(deps, req, outcome);
      return "error" in outcome ? errorResult(`run_code failed: ${outcome.error}`) : toolResult(outcome, limitsOf(server));
    } finally {
      running.delete(run);
    }
  });

  const close = mcp.close.bind(mcp);
  mcp.close = async () => {
    await close();
    await shutdown();
  };
  mcp.onclose = () => void shutdown();
  return mcp;
}

/** One run holding one slot, given back once its container is removed (so the cap also bounds the engine's work). */
async function runOnce(pool: RunnerPool, server: ResolvedServer, req: RunRequest, signal: AbortSignal, release: Release): Promise<RunResult | { error: string }> {
  let prepared;
  try {
    prepared = await pool.take(req.language);
  } catch (e) {
    release();
    return { error: messageOf(e) };
  }
  try {
    return await runIn(prepared, req, { timeoutMs: server.timeouts.runMs, maxOutputBytes: server.maxOutputBytes, signal });
  } catch (e) {
    return { error: messageOf(e) };
  } finally {
    // removal need not delay the answer (close() waits for it); the slot waits for it, but not for an engine that hangs
    const removed = pool.release(prepared.shot).catch(() => {});
    void Promise.race([removed, new Promise((r) => setTimeout(r, SLOT_REMOVAL_WAIT_MS).unref())]).then(release);
  }
}

function limitsOf(server: ResolvedServer) {
  return { timeoutMs: server.timeouts.runMs, memory: server.limits.memory, maxOutputBytes: server.maxOutputBytes };
}

function audit(deps: CodeRunnerDeps, req: RunRequest, r: RunResult | { error: string }): void {
  if (!deps.audit) return;
  const base = { tool: TOOL_NAME, language: req.language, code: req.code, files: Object.keys(req.files ?? {}) };
  if ("error" in r) {
    deps.audit({ ...base, outcome: "error", error: r.error });
    return;
  }
  const outcome = r.cancelled ? "cancelled" : r.timedOut ? "timeout" : "ok";
  const { exitCode, durationMs, timedOut, oomKilled } = r;
  deps.audit({ ...base, outcome, exitCode, durationMs, timedOut, oomKilled });
}
