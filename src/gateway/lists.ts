/** What one server offers, gathered over every page. */
import type { Client } from "@modelcontextprotocol/client";
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, ServerCapabilities, Tool } from "@modelcontextprotocol/server";
import type { CacheHint } from "./cache-hints.ts";
import { CAPS, capMessage } from "./limits.ts";

export interface ServerLists {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  templates: ResourceTemplate[];
}

export type ListKind = keyof ServerLists;

export const EMPTY_LISTS: ServerLists = Object.freeze({ tools: [], prompts: [], resources: [], templates: [] }) as ServerLists;

/** Everything a server lists, within the caps of limits.ts (a server over one fails with the cap named). */
export async function listAll(
  client: Client,
  caps: ServerCapabilities | undefined,
  timeout: number,
  server = "?",
  hints: (CacheHint | undefined)[] = [],
): Promise<ServerLists> {
  const budget = { bytes: 0, hints };
  const [tools, prompts, resources, templates] = await Promise.all([
    caps?.tools ? listKind(client, "tools", timeout, server, budget) : [],
    caps?.prompts ? listKind(client, "prompts", timeout, server, budget) : [],
    caps?.resources ? listKind(client, "resources", timeout, server, budget) : [],
    caps?.resources ? listKind(client, "templates", timeout, server, budget) : [],
  ]);
  return { tools, prompts, resources, templates } as ServerLists;
}

const KIND_NAMES: Record<ListKind, string> = { tools: "tools", prompts: "prompts", resources: "resources", templates: "resource templates" };

export async function listKind<K extends ListKind>(
  client: Client,
  kind: K,
  timeout: number,
  server = "?",
  budget: { bytes: number; hints?: (CacheHint | undefined)[] } = { bytes: 0 },
): Promise<ServerLists[K]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= CAPS.listPages) throw capError(capMessage.listPages(server, KIND_NAMES[kind]));
    const params = cursor === undefined ? {} : { cursor };
    const r = await pageOf(client, kind, params, timeout);
    budget.hints?.push(r.hint);
    const cap = kind === "templates" ? CAPS.listTemplates : CAPS.listItems;
    if (out.length + r.items.length > cap) throw capError(capMessage.listItems(server, KIND_NAMES[kind], cap));
    budget.bytes += JSON.stringify(r.items).length;
    if (budget.bytes > CAPS.listBytes) throw capError(capMessage.listBytes(server));
    out.push(...r.items);
    if (!r.nextCursor || r.nextCursor === cursor) break;
    cursor = r.nextCursor;
  }
  return out as ServerLists[K];
}

const capError = (message: string) => new Error(message);

/** What a page says of its caching (2026-07-28 servers say; 2025-11-25 ones do not). */
function hintOf(r: unknown): CacheHint | undefined {
  const { ttlMs, cacheScope } = r as { ttlMs?: unknown; cacheScope?: unknown };
  if (typeof ttlMs !== "number" && cacheScope === undefined) return undefined;
  return { ttlMs: typeof ttlMs === "number" ? ttlMs : undefined, cacheScope: cacheScope === "public" ? "public" : "private" };
}

async function pageOf(client: Client, kind: ListKind, params: { cursor?: string }, timeout: number): Promise<{ items: unknown[]; nextCursor?: string | undefined; hint: CacheHint | undefined }> {
  return page(client, kind, params, timeout);
}

// One page each, by the SDK's method-keyed request (validated by the schema of the server's era), not client.listTools()
// and its siblings: those walk every page themselves and keep a response cache (a relist after list_changed must ask
// the server), and listTools() compiles a validator for every tool's output schema, synchronously, before any cap
// applies (seconds of blocked event loop for a hostile list); the gateway never validates output itself.
async function page(client: Client, kind: ListKind, params: { cursor?: string }, timeout: number) {
  const opts = { timeout };
  switch (kind) {
    case "tools": {
      const r = await client.request({ method: "tools/list", params }, opts);
      return { items: r.tools, nextCursor: r.nextCursor, hint: hintOf(r) };
    }
    case "prompts": {
      const r = await client.request({ method: "prompts/list", params }, opts);
      return { items: r.prompts, nextCursor: r.nextCursor, hint: hintOf(r) };
    }
    case "resources": {
      const r = await client.request({ method: "resources/list", params }, opts);
      return { items: r.resources, nextCursor: r.nextCursor, hint: hintOf(r) };
    }
    case "templates": {
      const r = await client.request({ method: "resources/templates/list", params }, opts);
      return { items: r.resourceTemplates, nextCursor: r.nextCursor, hint: hintOf(r) };
    }
  }
}
