/** Turns zod issues into config problems, with "did you mean" hints for unknown keys. */
import { z } from "zod";
import type { Problem } from "./problems.ts";
import { closest } from "./_suggest.ts";

/** The keys an object schema accepts at `path`, found by walking the schema. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: z.ZodType | undefined = schema;
  for (const segment of path) {
    node = node && childOf(node, segment);
  }
  const obj = node && unwrap(node);
  return obj instanceof z.ZodObject ? Object.keys(obj.shape) : [];
}

function unwrap(node: z.ZodType): z.ZodType {
  let n = node;
  while (n instanceof z.ZodOptional || n instanceof z.ZodDefault || n instanceof z.ZodNullable) n = n.unwrap() as z.ZodType;
  return n;
}

function childOf(node: z.ZodType, segment: PropertyKey): z.ZodType | undefined {
  const n = unwrap(node);
  if (n instanceof z.ZodObject) return (n.shape as Record<string, z.ZodType>)[String(segment)];
  if (n instanceof z.ZodRecord) return n.valueType as z.ZodType;
  if (n instanceof z.ZodArray) return n.element as z.ZodType;
  if (n instanceof z.ZodUnion) {
    for (const option of n.options as z.ZodType[]) {
      const child = childOf(option, segment);
      if (child) return child;
    }
  }
  return undefined;
}

export function problemsFromZod(schema: z.ZodType, error: z.ZodError): Problem[] {
  const problems: Problem[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const near = closest(key, known);
        problems.push({
          severity: "error",
          path: [...issue.path, key],
          message: "unknown key",
          hint: near ? `did you mean "${near}"?` : known.length ? `known keys: ${known.join(", ")}` : undefined,
        });
      }
      continue;
    }
    problems.push({ severity: "error", path: issue.path, message: messageOf(issue) });
  }
  return problems;
}

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") {
    const received = (issue as { input?: unknown }).input;
    if (received === undefined) return `is required (expected ${issue.expected})`;
    return `expected ${issue.expected}, received ${describe(received)}`;
  }
  if (issue.code === "invalid_value") {
    return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return issue.message.replace(/^Invalid input: /, "");
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "string") return `string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v)}`;
  return typeof v;
}
