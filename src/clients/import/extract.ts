/**
 * Finding the server entries in any client's file: the keys every supported client uses (mcpServers, servers,
 * context_servers, mcp_servers, mcp, extensions), each read with its client's reader.
 */
import type { ClientDescriptor, ForeignEntry } from "../types.ts";
import { readCommon } from "../_read.ts";
import { goose } from "../goose.ts";
import { opencode } from "../opencode.ts";
import { zed } from "../zed.ts";

export interface FoundEntry {
  name: string;
  entry: ForeignEntry;
}

type Reader = (raw: Record<string, unknown>) => ForeignEntry;

const KEYS: Array<[string, Reader]> = [
  ["mcpServers", readCommon],
  ["servers", readCommon],
  ["context_servers", zed.read!],
  ["mcp_servers", readCommon],
  ["mcp", opencode.read!],
  ["extensions", goose.read!],
];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function extractEntries(doc: unknown, client: ClientDescriptor | undefined, cwd?: string): FoundEntry[] {
  if (!isObject(doc)) return [];
  const found: FoundEntry[] = [];
  // Claude Code keeps "local scope" servers per project folder in ~/.claude.json
  const projects = doc.projects;
  if (cwd && isObject(projects) && isObject(projects[cwd]) && isObject(projects[cwd].mcpServers)) {
    for (const [name, item] of Object.entries(projects[cwd].mcpServers)) if (isObject(item)) found.push({ name, entry: readCommon(item) });
  }
  const keys = client ? KEYS.filter(([k]) => k === client.servers.path[0]) : KEYS;
  for (const [key, reader] of keys.length > 0 ? keys : KEYS) {
    let value = doc[key];
    // VS Code's older settings.json kept `"mcp": { "servers": {...} }`
    if (key === "mcp" && isObject(value) && isObject(value.servers) && !("type" in value.servers)) value = value.servers;
    const read = key === "mcp" && isObject(doc[key]) && value !== doc[key] ? readCommon : reader;
    if (Array.isArray(value)) {
      for (const item of value) if (isObject(item) && typeof item.name === "string") found.push({ name: item.name, entry: read(item) });
    } else if (isObject(value)) {
      for (const [name, item] of Object.entries(value)) if (isObject(item)) found.push({ name, entry: read(item) });
    }
  }
  return found;
}
