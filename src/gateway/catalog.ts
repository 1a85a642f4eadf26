/**
 * The one server the client sees: every server's tools, prompts, resources and templates under gateway names,
 * with the routes back to the owning server. Rebuilt whenever a server's lists change. Pure.
 */
import type { Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import type { ResolvedServer } from "../config/resolve.ts";
import { toolPolicy } from "./guards.ts";
import type { ServerLists } from "./lists.ts";
import type { NameClaims } from "./claims.ts";
import { assignNames } from "./names.ts";

export interface Route<T> {
  server: string;
  /** the server's own name or URI */
  name: string;
  item: T;
}

export interface Catalog {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  templates: ResourceTemplate[];
  toolRoutes: Map<string, Route<Tool>>;
  /** tools a policy hides: calls to them are refused, not "unknown" */
  hiddenTools: Map<string, Route<Tool>>;
  promptRoutes: Map<string, Route<Prompt>>;
  resourceRoutes: Map<string, Route<Resource>>;
  templateRoutes: Map<string, Route<ResourceTemplate>>;
  /** client-side resource URI for a server's own URI (differs only after a clash) */
  exposedUri(server: string, uri: string): string;
  collisions: string[];
  /** templates not served: they would match any URI (a server may answer only for its own URIs) */
  refusedTemplates: string[];
}

export interface CatalogInput {
  server: ResolvedServer;
  lists: ServerLists;
}

/**
 * transparent: one server, no prefix: names are passed through untouched. claims: the session's owners of raw
 * resource URIs (claims.ts), so a URI served as it is never moves to another server.
 */
export function buildCatalog(inputs: readonly CatalogInput[], transparent = false, claims?: NameClaims): Catalog {
  const collisions: string[] = [];
  const tools = named(inputs, (l) => l.tools, transparent, collisions);
  const hiddenTools = new Map<string, Route<Tool>>();
  const toolRoutes = new Map<string, Route<Tool>>();
  for (const [exposed, route] of tools) {
    const policy = toolPolicy(inputs.find((i) => i.server.name === route.server)!.server);
    (policy.visible(route.name) ? toolRoutes : hiddenTools).set(exposed, route);
  }
  const promptRoutes = named(inputs, (l) => l.prompts, transparent, collisions);
  const { routes: resourceRoutes, renamed } = uris(inputs, (l) => l.resources.map((r) => [r.uri, r] as const), claims);
  const refusedTemplates: string[] = [];
  const servable = inputs.map(({ server, lists }) => ({
    server,
    lists: {
      ...lists,
      templates: lists.templates.filter((t) => {
        if (literalPrefix(t.uriTemplate).length > 0 && SCHEME.test(t.uriTemplate)) return true;
        refusedTemplates.push(`${server.name}: resource template "${t.uriTemplate}" is refused: it would match any URI (start it with a scheme, e.g. "note://{id}")`);
        return false;
      }),
    },
  }));
  const templateRoutes = rankTemplates(uris(servable, (l) => l.templates.map((t) => [t.uriTemplate, t] as const)).routes);
  return {
    tools: [...toolRoutes].map(([name, r]) => ({ ...r.item, name })),
    prompts: [...promptRoutes].map(([name, r]) => ({ ...r.item, name })),
    resources: [...resourceRoutes].map(([uri, r]) => ({ ...r.item, uri })),
    templates: [...templateRoutes].map(([uriTemplate, r]) => ({ ...r.item, uriTemplate })),
    toolRoutes,
    hiddenTools,
    promptRoutes,
    resourceRoutes,
    templateRoutes,
    exposedUri: (server, uri) => renamed.get(`${server}\0${uri}`) ?? uri,
    collisions,
    refusedTemplates,
  };
}

function named<T extends { name: string }>(
  inputs: readonly CatalogInput[],
  pick: (l: ServerLists) => T[],
  transparent: boolean,
  collisions: string[],
): Map<string, Route<T>> {
  const requests = inputs.flatMap(({ server, lists }) =>
    pick(lists).map((item) => ({ server: server.name, prefix: server.prefix, name: item.name, item })),
  );
  const assigned = assignNames(requests, transparent);
  collisions.push(...assigned.collisions);
  return new Map(assigned.items.map((a, i) => [a.exposed, { server: a.server, name: a.name, item: requests[i]!.item }]));
}

/**
 * URIs stay as they are; on a clash the URI of the server that does not own it (claims: the first served with it in
 * this session; otherwise the later one) becomes `mcpbox://<server>/<encoded uri>`.
 */
function uris<T>(inputs: readonly CatalogInput[], pick: (l: ServerLists) => (readonly [string, T])[], claims?: NameClaims) {
  const routes = new Map<string, Route<T>>();
  const renamed = new Map<string, string>();
  const picked = inputs.map(({ server, lists }) => ({ server, items: pick(lists) }));
  for (const { server, items } of picked) for (const [uri] of items) if (!claims?.owner("resource", uri)) claims?.claim("resource", uri, server.name);
  for (const { server, items } of picked) {
    for (const [uri, item] of items) {
      let exposed = uri;
      const owner = claims?.owner("resource", uri);
      if (owner === undefined ? routes.has(uri) : owner !== server.name) {
        exposed = `mcpbox://${encodeURIComponent(server.name)}/${encodeURIComponent(uri)}`;
        renamed.set(`${server.name}\0${uri}`, exposed);
      }
      routes.set(exposed, { server: server.name, name: uri, item });
    }
  }
  return { routes, renamed };
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** The literal text of a URI template before its first expression. */
const literalPrefix = (template: string): string => template.split("{")[0]!;

/** Most specific first: the longest literal prefix, then the most literal text; ties keep their order. */
function rankTemplates<T>(routes: Map<string, Route<T>>): Map<string, Route<T>> {
  const literal = (t: string) => t.replace(/\{[^}]*\}/g, "").length;
  const ranked = [...routes].sort(([a], [b]) => literalPrefix(b).length - literalPrefix(a).length || literal(b) - literal(a));
  return new Map(ranked);
}

/** The server that owns a resource URI: listed, else matched by the most specific template, else undefined. */
export function routeResource(catalog: Catalog, uri: string): { server: string; uri: string } | undefined {
  const listed = catalog.resourceRoutes.get(uri);
  if (listed) return { server: listed.server, uri: listed.name };
  for (const route of catalog.templateRoutes.values()) {
    try {
      if (new UriTemplate(route.name).match(uri)) return { server: route.server, uri };
    } catch {
      // an upstream's malformed template matches nothing
    }
  }
  return undefined;
}
