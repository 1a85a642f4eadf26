/** What one server offers, gathered over every page. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from "@modelcontextprotocol/sdk/types.js";

export interface ServerLists {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  templates: ResourceTemplate[];
}

export type ListKind = keyof ServerLists;

export const EMPTY_LISTS: ServerLists = Object.freeze({ tools: [], prompts: [], resources: [], templates: [] }) as ServerLists;

const MAX_PAGES = 1000;

export async function listAll(client: Client, caps: ServerCapabilities | undefined, timeout: number): Promise<ServerLists> {
  const [tools, prompts, resources, templates] = await Promise.all([
    caps?.tools ? listKind(client, "tools", timeout) : [],
    caps?.prompts ? listKind(client, "prompts", timeout) : [],
    caps?.resources ? listKind(client, "resources", timeout) : [],
    caps?.resources ? listKind(client, "templates", timeout) : [],
  ]);
  return { tools, prompts, resources, templates } as ServerLists;
}

export async function listKind<K extends ListKind>(client: Client, kind: K, timeout: number): Promise<ServerLists[K]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const r = await pageOf(client, kind, params, timeout);
    out.push(...r.items);
    if (!r.nextCursor || r.nextCursor === cursor) break;
    cursor = r.nextCursor;
  }
  return out as ServerLists[K];
}

async function pageOf(client: Client, kind: ListKind, params: { cursor?: string }, timeout: number) {
  const opts = { timeout };
  switch (kind) {
    case "tools": {
      const r = await client.listTools(params, opts);
      return { items: r.tools, nextCursor: r.nextCursor };
    }
    case "prompts": {
      const r = await client.listPrompts(params, opts);
      return { items: r.prompts, nextCursor: r.nextCursor };
    }
    case "resources": {
      const r = await client.listResources(params, opts);
      return { items: r.resources, nextCursor: r.nextCursor };
    }
    case "templates": {
      const r = await client.listResourceTemplates(params, opts);
      return { items: r.resourceTemplates, nextCursor: r.nextCursor };
    }
  }
}
