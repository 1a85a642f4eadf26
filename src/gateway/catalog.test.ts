import { describe, expect, it } from "vitest";
import type { ResolvedServer } from "../config/resolve.ts";
import { buildCatalog, routeResource } from "./catalog.ts";
import { NameClaims } from "./claims.ts";
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

  it("passes only data: icons of tools, prompts, resources and templates (a URL or file: icon is the client's to fetch)", () => {
    const png = { src: "data:image/png;base64,iVBORw0KGgo=", mimeType: "image/png" };
    const icons = [{ src: "https://evil.example/t.png?d=secret" }, { src: "file:///etc/passwd" }, { src: "file://evil.example/share/x.png" }, { src: " data:x" }, png, { src: 1 }, null] as never as { src: string }[];
    const c = buildCatalog([
      {
        server: server("a"),
        lists: {
          tools: [{ ...tool("echo"), icons }, { ...tool("bare") }, { ...tool("urls"), icons: icons.slice(0, 3) }],
          prompts: [{ name: "p", icons }],
          resources: [{ uri: "test://1", name: "r", icons }],
          templates: [{ uriTemplate: "a://item/{id}", name: "t", icons: "not a list" as never }],
        },
      },
    ]);
    expect(c.tools.map((t) => t.icons)).toEqual([[png], undefined, undefined]);
    expect(c.tools.map((t) => "icons" in t)).toEqual([true, false, false]);
    expect(c.prompts[0]!.icons).toEqual([png]);
    expect(c.resources[0]!.icons).toEqual([png]);
    expect("icons" in c.templates[0]!).toBe(false);
    expect(c.toolRoutes.get("a__echo")!.item.icons).toBe(icons); // the server's own item is not changed
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
      { server: server("b"), lists: { ...EMPTY_LISTS, resources: [r("test://1")], templates: [{ uriTemplate: "b://item/{id}", name: "t" }] } },
    ]);
    expect(c.resources.map((x) => x.uri)).toEqual(["test://1", "test://2", "mcpbox://b/test%3A%2F%2F1"]);
    expect(routeResource(c, "mcpbox://b/test%3A%2F%2F1")).toEqual({ server: "b", uri: "test://1" });
    expect(routeResource(c, "test://1")).toEqual({ server: "a", uri: "test://1" });
    expect(routeResource(c, "b://item/42")).toEqual({ server: "b", uri: "b://item/42" });
    expect(routeResource(c, "zzz://1")).toBeUndefined();
    expect(c.exposedUri("b", "test://1")).toBe("mcpbox://b/test%3A%2F%2F1");
  });
});

describe("resource templates", () => {
  const t = (uriTemplate: string) => ({ uriTemplate, name: uriTemplate });
  it("refuses templates that name no place of their own", () => {
    const c = buildCatalog([{ server: server("wide"), lists: { ...EMPTY_LISTS, templates: [t("note://{+path}"), t("{+anything}"), t("{scheme}://x"), t("file:{+p}"), t("note://w/{+p}")] } }]);
    expect(c.templates.map((x) => x.uriTemplate)).toEqual(["note://w/{+p}"]);
    expect(c.refusedTemplates).toHaveLength(4);
  });

  it("ranks a server's own templates by specificity; another server's overlapping one is refused", () => {
    const c = buildCatalog([
      { server: server("a"), lists: { ...EMPTY_LISTS, templates: [t("note://a/{+path}"), t("note://a/team/{id}")] } },
      { server: server("b"), lists: { ...EMPTY_LISTS, templates: [t("note://a/team/secret/{id}"), t("note://b/{id}")] } },
    ]);
    expect(c.templates.map((x) => x.uriTemplate)).toEqual(["note://a/team/{id}", "note://a/{+path}", "note://b/{id}"]);
    expect(c.refusedTemplates).toEqual([expect.stringMatching(/^b: resource template "note:\/\/a\/team\/secret\/\{id\}" is refused: it overlaps/)]);
    expect(routeResource(c, "note://a/team/secret/1")).toEqual({ server: "a", uri: "note://a/team/secret/1" });
    expect(routeResource(c, "file:///etc/passwd")).toBeUndefined();
  });

  it("keeps a contested prefix with the server first served with it, whatever the config order", () => {
    const claims = new NameClaims();
    const later = { server: server("later"), lists: { ...EMPTY_LISTS, templates: [t("note://x/{id}")] } };
    buildCatalog([later], false, claims);
    const c = buildCatalog([{ server: server("first"), lists: { ...EMPTY_LISTS, templates: [t("note://x/{+all}")] } }, later], false, claims);
    expect(routeResource(c, "note://x/1")).toEqual({ server: "later", uri: "note://x/1" });
  });
});
