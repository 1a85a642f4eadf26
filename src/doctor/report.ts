/** How doctor's results are shown and what they exit with. Pure: colour is passed in. */
import { terminalLine } from "../text/terminal.ts";
import type { CheckResult, CheckStatus } from "./checks.ts";

/** 3 when the engine is unusable, 1 when another check failed, 0 otherwise (warnings pass). */
export function exitCodeOf(results: readonly CheckResult[]): number {
  const failed = results.filter((r) => r.status === "fail");
  if (failed.some((r) => r.engine)) return 3;
  return failed.length > 0 ? 1 : 0;
}

export interface DoctorJson {
  ok: boolean;
  checks: { name: string; status: CheckStatus; message: string; fix: string | null; data?: Readonly<Record<string, unknown>> }[];
}

export function toJson(results: readonly CheckResult[]): DoctorJson {
  return {
    ok: exitCodeOf(results) === 0,
    checks: results.map((r) => ({ name: r.name, status: r.status, message: r.message, fix: r.fix ?? null, ...(r.data ? { data: r.data } : {}) })),
  };
}

export interface Painter {
  red: (s: string) => string;
  yellow: (s: string) => string;
  green: (s: string) => string;
  dim: (s: string) => string;
}

const plain: Painter = { red: (s) => s, yellow: (s) => s, green: (s) => s, dim: (s) => s };

/** One line per check (`✓ name  message`), with a `fix:` line under each warning or failure. */
export function formatHuman(results: readonly CheckResult[], paint: Painter = plain): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const mark = { ok: paint.green("✓"), warn: paint.yellow("!"), fail: paint.red("✗") };
  const lines: string[] = [];
  for (const r of results) {
    // messages quote the engine, the config and files found on the way: printed without escapes
    lines.push(`${mark[r.status]} ${r.name.padEnd(width)}  ${terminalLine(r.message)}`);
    if (r.fix && r.status !== "ok") lines.push(`  ${" ".repeat(width)}  ${paint.dim("fix:")} ${terminalLine(r.fix)}`);
  }
  return lines.join("\n") + "\n";
}

/** The closing line: what the outcome means. */
export function summaryOf(results: readonly CheckResult[]): string {
  const fails = results.filter((r) => r.status === "fail").length;
  const warns = results.filter((r) => r.status === "warn").length;
  const code = exitCodeOf(results);
  const counts = `${fails} failed, ${warns} warning${warns === 1 ? "" : "s"}`;
  if (code === 3) return `the Docker engine is unusable: ${terminalLine(results.find((r) => r.engine && r.status === "fail")!.message)}`;
  if (code === 1) return `${counts}: fix the failed checks above`;
  return warns > 0 ? `ready, with ${warns} warning${warns === 1 ? "" : "s"}` : "everything mcpbox needs is in place";
}
