/** A config problem: where it is, what is wrong, and how to fix it. */
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

/** `<file>: <dotted.path>: <message>` plus ` (hint)` where one helps. */
export function formatProblem(file: string, p: Problem): string {
  const prefix = p.severity === "warning" ? "warning: " : "";
  const hint = p.hint ? ` (${p.hint})` : "";
  return `${file}: ${dotted(p.path)}: ${prefix}${p.message}${hint}`;
}

export const errorsOf = (ps: readonly Problem[]) => ps.filter((p) => p.severity === "error");
export const warningsOf = (ps: readonly Problem[]) => ps.filter((p) => p.severity === "warning");
