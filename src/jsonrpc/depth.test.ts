import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./depth.ts";

describe("nestedDeeperThan", () => {
  it("counts brackets outside strings only", () => {
    expect(nestedDeeperThan('{"a":[1,{"b":2}]}', 3)).toBe(false);
    expect(nestedDeeperThan('{"a":[1,{"b":[2]}]}', 3)).toBe(true);
    expect(nestedDeeperThan(JSON.stringify({ s: "[[[[[[[[[[{{{{{{" }), 2)).toBe(false);
    expect(nestedDeeperThan(JSON.stringify({ s: 'a\\"[[[[' }), 2)).toBe(false);
  });

  it("refuses what JSON.stringify could not write back, and passes what MCP sends", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(() => JSON.stringify(JSON.parse(deep))).toThrow(RangeError);
    expect(nestedDeeperThan(deep)).toBe(true);
    let schema: unknown = { type: "string" };
    for (let i = 0; i < 30; i++) schema = { type: "object", properties: { x: schema } };
    expect(nestedDeeperThan(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools: [{ inputSchema: schema }] } }), MAX_JSON_DEPTH)).toBe(false);
  });
});
