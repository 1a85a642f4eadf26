/** From mcpbox's entries to a client's text: the snippet alone, or merged into the text of its existing file. */
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { McpboxError } from "../errors.ts";
import type { ClientDescriptor, HttpEntry, StdioEntry } from "./types.ts";
import { GATEWAY_ENTRY } from "./entries.ts";
import { parseJsonc } from "./formats/json.ts";
import { formatHandler, type Rendered } from "./formats/index.ts";

export function renderEntries(client: ClientDescriptor, entries: readonly StdioEntry[]): Rendered[] {
  return entries.map((e) => ({ name: e.name, value: client.render(refuseReferences(client, e)) }));
}

/**
 * A client that reads references (`${env:NAME}`, `{file:path}`) in the command line it starts a server with would
 * replace one in a config path, a `-e NAME=value` or a server's argument (a cloned repository's sandbox.config.ts
 * writes them) with the host's variable or file, and hand it to the container; none of them has an escape, so such
 * an entry is refused. The env map's values are mcpbox's own references, to variable names the schema checked.
 */
function refuseReferences(client: ClientDescriptor, entry: StdioEntry): StdioEntry {
  const expands = client.expands;
  const found = expands ? [entry.command, ...entry.args].find((s) => expands.test(s)) : undefined;
  if (found === undefined) return entry;
  throw new McpboxError("config", `${entry.name}: ${client.title} would read ${JSON.stringify(found)} as a reference and put the host's variable or file in its place, so mcpbox does not write it`, {
    hint: "remove the reference from sandbox.config.ts (an env value, an argument, a mount) or from the config's path; for direct mode, pass a host variable as a secret ({ env: \"NAME\" }) instead",
  });
}

/** The URL entry of `serve --http` (`--mode http`); a client without one is told to use the gateway entry. */
export function renderHttpEntry(client: ClientDescriptor, entry: HttpEntry): Rendered[] {
  if (!client.renderHttp) {
    throw new McpboxError("usage", `${client.title} cannot take the token of serve --http from an environment variable or a prompt, and mcpbox writes no secret into a client's file`, {
      hint: `use --mode gateway for ${client.title} (it starts mcpbox serve over stdio, no token needed)`,
    });
  }
  return [{ name: entry.name, value: client.renderHttp(entry) }];
}

const rendered = (client: ClientDescriptor, entries: readonly StdioEntry[] | readonly Rendered[]): readonly Rendered[] =>
  entries.map((e) => ("value" in e ? e : { name: e.name, value: client.render(refuseReferences(client, e)) }));

export function snippetFor(client: ClientDescriptor, entries: readonly StdioEntry[] | readonly Rendered[]): string {
  return formatHandler(client.format).snippet(client, rendered(client, entries));
}

/** The new text of `file`; equal to `text` when the entries are already there. Throws when `text` does not parse. */
export function mergedText(client: ClientDescriptor, text: string, entries: readonly StdioEntry[] | readonly Rendered[], file: string): string {
  return formatHandler(client.format).merge(client, text, rendered(client, entries), file);
}

/** Names of mcpbox-owned entries (`mcpbox`, `mcpbox-*`) already in the file; unreadable text gives none. */
export function ownedNames(client: ClientDescriptor, text: string): string[] {
  let doc: unknown;
  try {
    doc = parseAny(client.format, text);
  } catch {
    return [];
  }
  const servers = client.servers.path.reduce<unknown>((n, k) => (n && typeof n === "object" ? (n as Record<string, unknown>)[k] : undefined), doc);
  const names = Array.isArray(servers)
    ? servers.map((s: { name?: unknown }) => s?.name).filter((n): n is string => typeof n === "string")
    : servers && typeof servers === "object"
      ? Object.keys(servers)
      : [];
  return names.filter((n) => n === GATEWAY_ENTRY || n.startsWith(`${GATEWAY_ENTRY}-`));
}

function parseAny(format: ClientDescriptor["format"], text: string): unknown {
  if (text.trim() === "") return {};
  if (format === "toml") return parseToml(text);
  if (format === "yaml") return parseYaml(text) as unknown;
  return parseJsonc(text, "");
}
