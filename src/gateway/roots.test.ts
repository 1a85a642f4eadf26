import { describe, expect, it } from "vitest";
import { translatePath, translateRoots } from "./roots.ts";

const mounts = [
  { source: "/home/ann/reports", target: "/data", readOnly: true },
  { source: "/home/ann/reports/2026", target: "/year", readOnly: true },
  { source: "/srv/code", target: "/work", readOnly: false },
];

describe("translatePath", () => {
  it("maps a mount source and what is inside it", () => {
    expect(translatePath("/home/ann/reports", mounts)).toBe("/data");
    expect(translatePath("/home/ann/reports/q1/a b", mounts)).toBe("/data/q1/a b");
    expect(translatePath("/home/ann/reports/2026/x", mounts)).toBe("/year/x");
  });
  it("drops what is outside every mount, including look-alike prefixes", () => {
    expect(translatePath("/home/ann", mounts)).toBeUndefined();
    expect(translatePath("/home/ann/reports-old", mounts)).toBeUndefined();
    expect(translatePath("/srv/code/../secret", mounts)).toBeUndefined();
  });
});

describe("translateRoots", () => {
  it("translates file roots, keeps names, drops the rest", () => {
    const out = translateRoots(
      [
        { uri: "file:///home/ann/reports/q1", name: "Q1" },
        { uri: "file:///home/ann/.ssh" },
        { uri: "https://example.com" },
        { uri: "file:///srv/code" },
        { uri: "file:///srv/code/" },
      ],
      mounts,
    );
    expect(out).toEqual([{ uri: "file:///data/q1", name: "Q1" }, { uri: "file:///work" }]);
  });
  it("sends nothing to a server without mounts", () => {
    expect(translateRoots([{ uri: "file:///home/ann/reports" }], [])).toEqual([]);
  });
});
