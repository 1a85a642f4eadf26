/**
 * YAML (goose, Continue), edited through the `yaml` library's Document, which keeps comments and the layout of
 * everything it does not touch. Continue keeps servers in a list matched by `name`.
 */
import { isMap, isSeq, parseDocument, stringify, type Document } from "yaml";
import type { ClientDescriptor } from "../types.ts";
import { freshDocument, notAnObject, parseFailure, sameValue, type FormatHandler, type Rendered } from "./_shared.ts";

export const yamlFormat: FormatHandler = {
  snippet: (client, entries) => stringify(freshDocument(client, entries)),
  merge: mergeYaml,
};

function mergeYaml(client: ClientDescriptor, text: string, entries: readonly Rendered[], file: string): string {
  if (text.trim() === "") return stringify(freshDocument(client, entries, true));
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
  return changed ? doc.toString() : text;
}

function putInMap(doc: Document, client: ClientDescriptor, { name, value }: Rendered, file: string): boolean {
  const at = client.servers.path;
  const container = doc.getIn(at);
  if (container !== undefined && container !== null && !isMap(container)) throw notAnObject(file, at.join("."));
  const existing = doc.getIn([...at, name]) as { toJSON?: () => unknown } | undefined;
  if (sameValue(existing?.toJSON?.() ?? existing, value)) return false;
  doc.setIn([...at, name], doc.createNode(value));
  return true;
}

function putInList(doc: Document, client: ClientDescriptor, { name, value }: Rendered, file: string): boolean {
  const at = client.servers.path;
  const list = doc.getIn(at);
  if (list === undefined || list === null) {
    doc.setIn(at, doc.createNode([value]));
    return true;
  }
  if (!isSeq(list)) throw notAnObject(file, `${at.join(".")} (a list)`);
  const index = list.items.findIndex((item) => isMap(item) && item.get("name") === name);
  const existing = index >= 0 ? (list.items[index] as { toJSON: () => unknown }).toJSON() : undefined;
  if (sameValue(existing, value)) return false;
  if (index >= 0) list.set(index, doc.createNode(value));
  else list.add(doc.createNode(value));
  return true;
}
