import { describe, expect, it } from "vitest";
import type { ResolvedServer } from "../config/resolve.ts";
import { buildCatalog, routeResource } from "./catalog.ts";
import { EMPTY_LISTS } from "./lists.ts";

const server = (name: string, extra: Partial<ResolvedServer> = {}) =>
  ({ name, prefix: name, tools: { allow: undefined, deny: [] }, approve: [], ...extra }) as ResolvedServer;
const tool = (name: string) => ({ name, inputSchema: { type: "object" as const } });

describe("buildCatalog", () => {
  it("prefixes names and routes them back", () => {
    const c = buildCatalog([
      { server: server("a"), lists: { ...EMPTY_LISTS, tools: [tool("echo")], prompts: [{ name: "p" }] } },
      { server: server("b"), lists: { ...EMPTY_LISTS, tools: [tool("echo")] } },
    ]);
    expect(c.tools.map((t) => t.name)).toEqual(["a__echo", "b__echo"]);
    expect(c.toolRoutes.get("b__echo")).toMatchObject({ server: "b", name: "echo" });
    expect(c.prompts.map((p) => p.name)).toEqual(["a__p"]);
  });

  it("hides denied tools but remembers them", () => {
    const c = buildCatalog([
      { server: server("a", { tools: { allow: undefined, deny: ["del*"] } }), lists: { ...EMPTY_LISTS, tools: [tool("delete"), tool("get")] } },
    ]);
    expect(c.tools.map((t) => t.name)).toEqual(["a__get"]);
    expect(c.hiddenTools.has("a__delete")).toBe(true);
  });

  it("keeps unique URIs and rewrites clashing ones", () => {
    const r = (uri: string) => ({ uri, name: uri });
    const c = buildCatalog([
      { server: server("a"), lists: { ...EMPTY_LISTS, resources: [r("test://1"), r("test://2")] } },
      { server: server("b"), lists: { ...EMPTY_LISTS, resources: [r("test://1")], templates: [{ uriTemplate: "b://{id}", name: "t" }] } },
    ]);
    expect(c.resources.map((x) => x.uri)).toEqual(["test://1", "test://2", "mcpbox://b/test%3A%2F%2F1"]);
    expect(routeResource(c, "mcpbox://b/test%3A%2F%2F1")).toEqual({ server: "b", uri: "test://1" });
    expect(routeResource(c, "test://1")).toEqual({ server: "a", uri: "test://1" });
    expect(routeResource(c, "b://42")).toEqual({ server: "b", uri: "b://42" });
    expect(routeResource(c, "zzz://1")).toBeUndefined();
    expect(c.exposedUri("b", "test://1")).toBe("mcpbox://b/test%3A%2F%2F1");
  });
});

describe("resource templates", () => {
  const t = (uriTemplate: string) => ({ uriTemplate, name: uriTemplate });
  it("routes to the most specific template and refuses bare catch-alls", () => {
    const c = buildCatalog([
      { server: server("wide"), lists: { ...EMPTY_LISTS, templates: [t("note://{+path}"), t("{+anything}"), t("{scheme}://x")] } },
      { server: server("narrow"), lists: { ...EMPTY_LISTS, templates: [t("note://team/{id}")] } },
    ]);
    expect(c.templates.map((x) => x.uriTemplate)).toEqual(["note://team/{id}", "note://{+path}"]);
    expect(c.refusedTemplates).toHaveLength(2);
    expect(routeResource(c, "note://team/42")).toEqual({ server: "narrow", uri: "note://team/42" });
    expect(routeResource(c, "note://other/1")).toEqual({ server: "wide", uri: "note://other/1" });
    expect(routeResource(c, "file:///etc/passwd")).toBeUndefined();
  });
});
