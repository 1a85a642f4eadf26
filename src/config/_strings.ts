/**
 * One check over every string of the config, keys included: control characters (C0, DEL, C1; newlines too) are
 * refused wherever they are, because config strings reach Dockerfiles, command lines, environments and labels, where
 * a newline starts a new instruction or a new entry. Checking everything closes the class, not a list of keys.
 */
import type { Problem } from "./problems.ts";

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_DEPTH = 64;

export function controlCharacterProblems(raw: unknown): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<object>();
  const visit = (v: unknown, at: PropertyKey[]) => {
    if (typeof v === "string") {
      if (CONTROL.test(v)) problems.push(problem(at, v));
      return;
    }
    if (!v || typeof v !== "object" || seen.has(v) || at.length > MAX_DEPTH) return;
    seen.add(v);
    if (Array.isArray(v)) return v.forEach((x, i) => visit(x, [...at, i]));
    for (const [k, x] of Object.entries(v)) {
      if (CONTROL.test(k)) problems.push(problem([...at, escape(k)], k, "key"));
      visit(x, [...at, escape(k)]);
    }
  };
  visit(raw, []);
  return problems;
}

function problem(at: PropertyKey[], value: string, what = "value"): Problem {
  const c = CONTROL.exec(value)![0].codePointAt(0)!;
  return {
    severity: "error",
    path: at,
    message: `the ${what} contains the control character U+${c.toString(16).toUpperCase().padStart(4, "0")}, which is refused`,
    hint: "remove it: control characters (newlines and tabs too) would reach a Dockerfile, a command line or a label",
  };
}

/** A key as it can be printed on one line. */
export const escape = (s: string): string =>
  s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`);
