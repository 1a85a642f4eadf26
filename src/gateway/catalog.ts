/**
 * The one server the client sees: every server's tools, prompts, resources and templates under gateway names,
 * with the routes back to the owning server. Rebuilt whenever a server's lists change. Pure.
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from "@modelcontextprotocol/server";
import type { ResolvedServer } from "../config/resolve.ts";
import { toolPolicy } from "./guards.ts";
import type { ServerLists } from "./lists.ts";
import type { NameClaims } from "./claims.ts";
import { assignNames } from "./names.ts";
import { literalPrefix, namesAPlace, templateLiterals, templateMatches } from "./uri-match.ts";
import { withDataIcons } from "./icons.ts";

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
  const servable = servableTemplates(inputs, refusedTemplates, claims);
  const templateRoutes = rankTemplates(uris(servable, (l) => l.templates.map((t) => [t.uriTemplate, t] as const)).routes);
  return {
    tools: [...toolRoutes].map(([name, r]) => ({ ...withDataIcons(r.item), name })),
    prompts: [...promptRoutes].map(([name, r]) => ({ ...withDataIcons(r.item), name })),
    resources: [...resourceRoutes].map(([uri, r]) => ({ ...withDataIcons(r.item), uri })),
    templates: [...templateRoutes].map(([uriTemplate, r]) => ({ ...withDataIcons(r.item), uriTemplate })),
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

/**
 * The templates that are served: each must name a place of its own (uri-match.ts namesAPlace), and none may overlap
 * another server's (one prefix inside the other), so no server can take over URIs that another serves. Who keeps a
 * contested prefix: the server first served with its template in this session (claims), else config order.
 */
function servableTemplates(inputs: readonly CatalogInput[], refused: string[], claims?: NameClaims): CatalogInput[] {
  const all = inputs.flatMap(({ server, lists }) => lists.templates.map((t) => ({ server: server.name, template: t.uriTemplate, item: t })));
  const held = claims?.entries("template") ?? [];
  const owned = (x: { server: string; template: string }) => claims?.owner("template", x.template) === x.server;
  const accepted = held.map(([template, server]) => ({ server, template, prefix: literalPrefix(template) }));
  const keep = new Set<object>();
  for (const x of [...all.filter(owned), ...all.filter((x) => !owned(x))]) {
    const prefix = literalPrefix(x.template);
    if (!templateLiterals(x.template) || !namesAPlace(prefix)) {
      refused.push(`${x.server}: resource template "${x.template}" is refused: it would match URIs of any server (start it with a scheme and a place, e.g. "note://${x.server}/{id}")`);
      continue;
    }
    const other = accepted.find((a) => a.server !== x.server && (prefix.startsWith(a.prefix) || a.prefix.startsWith(prefix)));
    if (other) {
      refused.push(`${x.server}: resource template "${x.template}" is refused: it overlaps "${other.template}" of server ${other.server}`);
      continue;
    }
    accepted.push({ server: x.server, template: x.template, prefix });
    claims?.claim("template", x.template, x.server);
    keep.add(x.item);
  }
  return inputs.map(({ server, lists }) => ({ server, lists: { ...lists, templates: lists.templates.filter((t) => keep.has(t)) } }));
}

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
    if (templateMatches(route.name, uri)) return { server: route.server, uri };
  }
  return undefined;
}
