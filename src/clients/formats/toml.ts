/**
 * TOML (Codex): smol-toml renders and checks, but the file is edited as text: the old `[mcp_servers.<name>]` table
 * (with its sub-tables) is cut out and the new one appended, so every other line and comment stays as it was.
 */
import { parse, stringify, TomlError } from "smol-toml";
import { McpboxError } from "../../errors.ts";
import type { ClientDescriptor } from "../types.ts";
import { freshDocument, isPlainObject, notAnObject, parseFailure, sameValue, type FormatHandler, type Rendered } from "./_shared.ts";

export const tomlFormat: FormatHandler = {
  snippet: (client, entries) => stringify(freshDocument(client, entries)) + "\n",
  merge: mergeToml,
};

function mergeToml(client: ClientDescriptor, text: string, entries: readonly Rendered[], file: string): string {
  const doc = parseToml(text, file);
  const at = client.servers.path;
  const container = at.reduce<unknown>((node, key) => (isPlainObject(node) ? node[key] : undefined), doc);
  if (container !== undefined && !isPlainObject(container)) throw notAnObject(file, at.join("."));
  let out = text;
  for (const { name, value } of entries) {
    if (sameValue(container?.[name], value)) continue;
    const header = [...at, name];
    const cut = removeTable(out, header);
    if (cut === undefined && container?.[name] !== undefined) {
      throw new McpboxError("config", `${file}: ${header.join(".")} is written inline, so mcpbox cannot replace it in place`, {
        hint: `write it as a [${header.join(".")}] table, or delete it and run again`,
      });
    }
    out = appendTable(cut ?? out, stringify(freshDocument(client, [{ name, value }])));
  }
  if (out !== text) check(out, doc, at, entries, file);
  return out;
}

function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof TomlError) throw parseFailure(file, e.message.split("\n")[0]!, e.line, e.column);
    throw e;
  }
}

const keyPattern = (k: string) => `(?:${escape(k)}|"${escape(k)}"|'${escape(k)}')`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The text without the table at `header` and its sub-tables; undefined when there is no such table header. */
function removeTable(text: string, header: string[]): string | undefined {
  const mine = new RegExp(`^\\s*\\[\\s*${header.map(keyPattern).join("\\s*\\.\\s*")}\\s*(\\]|\\.)`);
  const anyHeader = /^\s*\[/;
  const lines = text.split("\n");
  let inside = false;
  let found = false;
  const kept = lines.filter((line) => {
    if (anyHeader.test(line)) inside = mine.test(line);
    if (inside) found = true;
    return !inside;
  });
  return found ? kept.join("\n") : undefined;
}

function appendTable(text: string, table: string): string {
  const body = text.replace(/\s*$/, "");
  return body === "" ? `${table}\n` : `${body}\n\n${table}\n`;
}

/**
 * The edited text must parse, hold exactly the new entries, and everything else as the file had it: the cut is made
 * on lines, and a line of a multi-line string that reads like the entry's header (`[mcp_servers.mcpbox]` inside
 * another server's `"""`) would otherwise lose lines of that string without a word.
 */
function check(text: string, before: Record<string, unknown>, at: string[], entries: readonly Rendered[], file: string): void {
  const doc = parseToml(text, file);
  const container = at.reduce<unknown>((node, key) => (isPlainObject(node) ? node[key] : undefined), doc);
  const others = (d: Record<string, unknown>) => withoutEntries(d, at, entries);
  const kept = sameValue(others(doc), others(before));
  for (const { name, value } of entries) {
    if (!kept || !isPlainObject(container) || !sameValue(container[name], value)) {
      throw new McpboxError("config", `${file}: mcpbox could not place ${[...at, name].join(".")} in this file`, {
        hint: "the file was left untouched; add the snippet `mcpbox config codex` prints by hand",
      });
    }
  }
}

/** The document without the entries mcpbox writes (a copy along their path; the rest shared). */
function withoutEntries(doc: Record<string, unknown>, at: string[], entries: readonly Rendered[]): Record<string, unknown> {
  const [key, ...rest] = at;
  if (key === undefined) {
    const copy = { ...doc };
    for (const { name } of entries) delete copy[name];
    return copy;
  }
  const node = doc[key];
  if (!isPlainObject(node)) return doc;
  const { [key]: _, ...copy } = doc;
  const inner = withoutEntries(node, rest, entries);
  // a table that held only mcpbox's entries, or that the edit made, is no difference
  return Object.keys(inner).length === 0 ? copy : { ...copy, [key]: inner };
}
