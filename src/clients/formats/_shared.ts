/** What the three format handlers share: rendered entries, equality, and parse errors that name the place. */
import { McpboxError } from "../../errors.ts";
import { stableJson } from "../../config/resolve.ts";
import type { ClientDescriptor } from "../types.ts";

/** An entry already in the client's shape, with the key it is stored under. */
export interface Rendered {
  name: string;
  value: Record<string, unknown>;
}

export interface FormatHandler {
  /** a document holding only these entries (what `mcpbox config` prints) */
  snippet: (client: ClientDescriptor, entries: readonly Rendered[]) => string;
  /** the file's text with the entries merged in; everything else kept; throws McpboxError when it does not parse */
  merge: (client: ClientDescriptor, text: string, entries: readonly Rendered[], file: string) => string;
}

export const sameValue = (a: unknown, b: unknown) => stableJson(a) === stableJson(b);

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

export function parseFailure(file: string, what: string, line: number, column: number): McpboxError {
  return new McpboxError("config", `${file}:${line}:${column}: cannot be parsed: ${what}`, {
    hint: "fix the file (it was left untouched), or pass another one with --file",
  });
}

export function notAnObject(file: string, where: string): McpboxError {
  return new McpboxError("config", `${file}: ${where} is not an object, so mcpbox cannot add its entries there`, {
    hint: "fix the file (it was left untouched), or pass another one with --file",
  });
}

/** The servers at their path; a new file also gets the client's skeleton keys first. */
export function freshDocument(
  client: ClientDescriptor,
  entries: readonly Rendered[],
  withSkeleton = false,
): Record<string, unknown> {
  const servers =
    client.servers.shape === "list"
      ? entries.map((e) => e.value)
      : Object.fromEntries(entries.map((e) => [e.name, e.value]));
  let node: unknown = servers;
  for (const key of [...client.servers.path].reverse()) node = { [key]: node };
  return { ...(withSkeleton ? client.skeleton : {}), ...(node as Record<string, unknown>) };
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
