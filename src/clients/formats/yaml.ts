/**
 * YAML (goose, Continue), edited through the `yaml` library's Document, which keeps comments and the layout of
 * everything it does not touch. Continue keeps servers in a list matched by `name`.
 */
import { Document, isMap, isScalar, isSeq, parseDocument, visit } from "yaml";
import { McpboxError } from "../../errors.ts";
import type { ClientDescriptor } from "../types.ts";
import { freshDocument, notAnObject, parseFailure, sameValue, type FormatHandler, type Rendered } from "./_shared.ts";

export const yamlFormat: FormatHandler = {
  snippet: (client, entries) => fresh(freshDocument(client, entries)),
  merge: mergeYaml,
};

function mergeYaml(client: ClientDescriptor, text: string, entries: readonly Rendered[], file: string): string {
  if (text.trim() === "") return fresh(freshDocument(client, entries, true));
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    throw parseFailure(file, error.message.split("\n")[0]!, pos?.line ?? 1, pos?.col ?? 1);
  }
  if (doc.contents !== null && !isMap(doc.contents)) throw notAnObject(file, "the top level");
  let changed = false;
  for (const entry of entries) {
    changed = (client.servers.shape === "list" ? putInList(doc, client, entry, file) : putInMap(doc, client, entry, file)) || changed;
  }
  return changed ? written(doc, file) : text;
}

/** The library refuses to write an alias whose anchor went with the entry mcpbox replaced (`other: *base`). */
function written(doc: Document, file: string): string {
  try {
    return doc.toString();
  } catch (e) {
    throw new McpboxError("config", `${file}: mcpbox cannot replace its entry here: ${(e as Error).message}`, {
      hint: "another entry refers to an anchor (&name) of mcpbox's entry; move the anchor to an entry of your own, and run again",
    });
  }
}

function putInMap(doc: Document, client: ClientDescriptor, { name, value }: Rendered, file: string): boolean {
  const at = client.servers.path;
  const container = doc.getIn(at);
  if (container !== undefined && container !== null && !isMap(container)) throw notAnObject(file, at.join("."));
  const existing = doc.getIn([...at, name]) as { toJSON?: () => unknown } | undefined;
  if (sameValue(existing?.toJSON?.() ?? existing, value)) return false;
  doc.setIn([...at, name], quotedNode(doc, value));
  return true;
}

function putInList(doc: Document, client: ClientDescriptor, { name, value }: Rendered, file: string): boolean {
  const at = client.servers.path;
  const list = doc.getIn(at);
  if (list === undefined || list === null) {
    doc.setIn(at, quotedNode(doc, [value]));
    return true;
  }
  if (!isSeq(list)) throw notAnObject(file, `${at.join(".")} (a list)`);
  const index = list.items.findIndex((item) => isMap(item) && item.get("name") === name);
  const existing = index >= 0 ? (list.items[index] as { toJSON: () => unknown }).toJSON() : undefined;
  if (sameValue(existing, value)) return false;
  if (index >= 0) list.set(index, quotedNode(doc, value));
  else list.add(quotedNode(doc, value));
  return true;
}

function fresh(value: Record<string, unknown>): string {
  const doc = new Document();
  doc.contents = quotedNode(doc, value);
  return doc.toString();
}

/** Our values with every string double-quoted: YAML 1.1 readers would take `1000:1000` for a number. */
function quotedNode(doc: Document, value: unknown) {
  const node = doc.createNode(value);
  visit(node, {
    Pair: (_, pair) => {
      if (isScalar(pair.value) && typeof pair.value.value === "string") pair.value.type = "QUOTE_DOUBLE";
    },
    Seq: (_, seq) => {
      for (const item of seq.items) if (isScalar(item) && typeof item.value === "string") item.type = "QUOTE_DOUBLE";
    },
  });
  return node;
}
