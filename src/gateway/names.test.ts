import { describe, expect, it } from "vitest";
import { assignNames, exposedName, VALID_NAME } from "./names.ts";

describe("exposedName", () => {
  it("joins prefix and name with a double underscore", () => {
    expect(exposedName("files", "read_file")).toBe("files__read_file");
    expect(exposedName(null, "read_file")).toBe("read_file");
  });

  it("replaces characters clients refuse", () => {
    expect(exposedName("my.server", "get tool/v2")).toBe("my_server__get_tool_v2");
    expect(exposedName(null, "")).toBe("_");
  });

  it("cuts long names deterministically with a hash, always valid", () => {
    const long = "x".repeat(100);
    const a = exposedName("srv", long);
    expect(a).toHaveLength(64);
    expect(a).toMatch(VALID_NAME);
    expect(exposedName("srv", long)).toBe(a);
    expect(exposedName("srv", long + "y")).not.toBe(a);
  });
});

describe("assignNames", () => {
  it("keeps distinct names as they are", () => {
    const { items, collisions } = assignNames([
      { server: "a", prefix: "a", name: "t" },
      { server: "b", prefix: "b", name: "t" },
    ]);
    expect(items.map((i) => i.exposed)).toEqual(["a__t", "b__t"]);
    expect(collisions).toEqual([]);
  });

  it("resolves clashes with a hash and reports them", () => {
    const { items, collisions } = assignNames([
      { server: "a", prefix: null, name: "read" },
      { server: "b", prefix: null, name: "read" },
      { server: "a", prefix: null, name: "x.y" },
      { server: "a", prefix: null, name: "x_y" },
    ]);
    const names = items.map((i) => i.exposed);
    expect(names[0]).toBe("read");
    expect(names[1]).toMatch(/^read_[0-9a-f]{6}$/);
    expect(new Set(names).size).toBe(4);
    for (const n of names) expect(n).toMatch(VALID_NAME);
    expect(collisions).toHaveLength(2);
  });

  it("keeps raw names in transparent mode", () => {
    expect(assignNames([{ server: "a", prefix: null, name: "odd.name" }], true).items[0]!.exposed).toBe("odd.name");
  });
});
