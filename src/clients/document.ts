/** From mcpbox's entries to a client's text: the snippet alone, or merged into the text of its existing file. */
import type { ClientDescriptor, StdioEntry } from "./types.ts";
import { formatHandler, type Rendered } from "./formats/index.ts";

export function renderEntries(client: ClientDescriptor, entries: readonly StdioEntry[]): Rendered[] {
  return entries.map((e) => ({ name: e.name, value: client.render(e) }));
}

export function snippetFor(client: ClientDescriptor, entries: readonly StdioEntry[]): string {
  return formatHandler(client.format).snippet(client, renderEntries(client, entries));
}

/** The new text of `file`; equal to `text` when the entries are already there. Throws when `text` does not parse. */
export function mergedText(client: ClientDescriptor, text: string, entries: readonly StdioEntry[], file: string): string {
  return formatHandler(client.format).merge(client, text, renderEntries(client, entries), file);
}
