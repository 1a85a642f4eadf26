/** How a run is reported to the client, pure: readable text plus the same facts as structured content. */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { RunResult } from "./run.ts";

export const OUTPUT_SCHEMA = {
  type: "object" as const,
  properties: {
    stdout: { type: "string" },
    stderr: { type: "string" },
    exitCode: { type: "integer", description: "the program's exit status (137 when it was killed)" },
    durationMs: { type: "integer" },
    timedOut: { type: "boolean", description: "killed at the wall-clock limit" },
    oomKilled: { type: "boolean", description: "killed for using more memory than its limit" },
    stdoutTruncated: { type: "boolean" },
    stderrTruncated: { type: "boolean" },
    stdoutBytes: { type: "integer", description: "bytes the program wrote, including any cut off" },
    stderrBytes: { type: "integer" },
  },
  required: ["stdout", "stderr", "exitCode", "durationMs", "timedOut", "oomKilled"],
};

export interface Limits {
  timeoutMs: number;
  memory: string;
  maxOutputBytes: number;
}

export function toolResult(r: RunResult, limits: Limits): CallToolResult {
  const { cancelled: _cancelled, ...structured } = r;
  return {
    content: [{ type: "text", text: describe(r, limits) }],
    structuredContent: structured,
    isError: false,
  };
}

export function describe(r: RunResult, limits: Limits): string {
  const lines = [statusLine(r, limits)];
  const section = (name: string, text: string, truncated: boolean, bytes: number) => {
    if (!text && !truncated) return;
    lines.push(`--- ${name} ---`, text.replace(/\n$/, ""));
    if (truncated) lines.push(`[${name} cut at ${limits.maxOutputBytes} bytes of ${bytes}]`);
  };
  section("stdout", r.stdout, r.stdoutTruncated, r.stdoutBytes);
  section("stderr", r.stderr, r.stderrTruncated, r.stderrBytes);
  return lines.join("\n");
}

function statusLine(r: RunResult, limits: Limits): string {
  if (r.timedOut) return `killed: still running after the ${limits.timeoutMs} ms time limit (${r.durationMs} ms)`;
  if (r.oomKilled) return `killed: out of memory (limit ${limits.memory}), exit code ${r.exitCode} after ${r.durationMs} ms`;
  return `exit code ${r.exitCode} after ${r.durationMs} ms`;
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
