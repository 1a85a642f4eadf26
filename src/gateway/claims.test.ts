import { describe, expect, it } from "vitest";
import type { ResolvedServer } from "../config/resolve.ts";
import { acceptLists, NameClaims } from "./claims.ts";
import { EMPTY_LISTS, type ServerLists } from "./lists.ts";

const server = (name: string, prefix: string | null) => ({ name, prefix }) as ResolvedServer;
const tools = (...names: string[]): ServerLists => ({ ...EMPTY_LISTS, tools: names.map((name) => ({ name, inputSchema: { type: "object" as const } })) });

describe("acceptLists", () => {
  it("keeps a name with its first server: a later list that would take it is refused, the old one kept", () => {
    const claims = new NameClaims();
    const accepted = new Map<string, ServerLists>();
    const one = server("one", null);
    const two = server("two", null);
    const first = acceptLists([{ server: one, lists: tools("a") }, { server: two, lists: tools("echo") }], accepted, claims, false);
    expect(first.refusals).toEqual([]);
    // "one" comes first in the config, yet "echo" stays with "two"
    const second = acceptLists([{ server: one, lists: tools("a", "echo") }, { server: two, lists: tools("echo") }], accepted, claims, false);
    expect(second.refusals).toEqual([expect.stringMatching(/^one: its lists are refused: tool "echo" already belongs to server two/)]);
    expect(second.lists[0]!.lists).toEqual(tools("a"));
    expect(second.lists[1]!.lists).toEqual(tools("echo"));
  });

  it("a name never moves, even after its server stops listing it", () => {
    const claims = new NameClaims();
    const accepted = new Map<string, ServerLists>();
    acceptLists([{ server: server("one", null), lists: tools("x") }], accepted, claims, false);
    acceptLists([{ server: server("one", null), lists: tools() }], accepted, claims, false);
    const r = acceptLists([{ server: server("one", null), lists: tools() }, { server: server("two", null), lists: tools("x") }], accepted, claims, false);
    expect(r.refusals).toHaveLength(1);
    expect(r.lists[1]!.lists).toEqual(EMPTY_LISTS);
  });

  it("prefixed servers never clash", () => {
    const r = acceptLists([{ server: server("a", "a"), lists: tools("x") }, { server: server("b", "b"), lists: tools("x") }], new Map(), new NameClaims(), false);
    expect(r.refusals).toEqual([]);
  });
});
