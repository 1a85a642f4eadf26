/** A config problem: where it is, what is wrong, and how to fix it. */
import { terminalLine, terminalText } from "../text/terminal.ts";

export type Severity = "error" | "warning";

export interface Problem {
  severity: Severity;
  /** path inside the config, e.g. ["servers", "files", "mounts", 0, "source"] */
  path: readonly PropertyKey[];
  message: string;
  hint?: string;
}

export const dotted = (path: readonly PropertyKey[]): string =>
  path.length === 0 ? "(root)" : path.map((p) => String(p)).join(".");

/**
 * `<file>: <dotted.path>: <message>` plus ` (hint)` where one helps, safe to print on a terminal: keys and values of
 * the config (a cloned repository's) reach the path and the message (zod's own issues name a refused key as it is),
 * so escape sequences are dropped and controls shown escaped, the path's and file's newlines too (hrev).
 */
export function formatProblem(file: string, p: Problem): string {
  const prefix = p.severity === "warning" ? "warning: " : "";
  const hint = p.hint ? ` (${p.hint})` : "";
  return `${terminalLine(file)}: ${terminalLine(dotted(p.path))}: ${prefix}${terminalText(p.message)}${terminalText(hint)}`;
}

export const errorsOf = (ps: readonly Problem[]) => ps.filter((p) => p.severity === "error");
export const warningsOf = (ps: readonly Problem[]) => ps.filter((p) => p.severity === "warning");
