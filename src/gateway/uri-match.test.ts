import { describe, expect, it } from "vitest";
import { namesAPlace, templateLiterals, templateMatches } from "./uri-match.ts";

describe("templateMatches", () => {
  it("matches what the template's literals allow", () => {
    expect(templateMatches("note://team/{id}", "note://team/42")).toBe(true);
    expect(templateMatches("note://team/{id}", "note://other/42")).toBe(false);
    expect(templateMatches("file:///{+path}", "file:///etc/x")).toBe(true);
    expect(templateMatches("db://{table}/rows/{id}.json", "db://t/rows/1.json")).toBe(true);
    expect(templateMatches("db://{table}/rows/{id}.json", "db://t/cols/1.json")).toBe(false);
    expect(templateMatches("x://a", "x://a")).toBe(true);
    expect(templateMatches("x://{a", "x://a")).toBe(false);
  });

  it("stays linear on the input that makes a regex backtrack", () => {
    const template = `evil:${"{+a}".repeat(20)}X`;
    const started = performance.now();
    for (let i = 0; i < 1000; i++) templateMatches(template, `evil:${"a".repeat(4000)}`);
    expect(performance.now() - started).toBeLessThan(2000); // a backtracking matcher takes minutes for one
  });

  it("parses literals and refuses unpaired braces", () => {
    expect(templateLiterals("a{b}c{d}")).toEqual(["a", "c", ""]);
    expect(templateLiterals("a}b{c}")).toBeUndefined();
    expect(templateLiterals("a{b{c}}")).toBeUndefined();
  });
});

describe("namesAPlace", () => {
  it("wants more than a bare scheme", () => {
    for (const ok of ["note://team/", "file:///", "urn:x:", "note://h"]) expect(namesAPlace(ok)).toBe(true);
    for (const bad of ["", "file:", "https://", "{", "//x"]) expect(namesAPlace(bad)).toBe(false);
  });
});
