import { describe, expect, it } from "vitest";
import { ALL_CAPABILITIES, joinInstructions, unionCapabilities } from "./capabilities.ts";

describe("unionCapabilities", () => {
  it("offers what any server offers, with list_changed", () => {
    expect(unionCapabilities([{ tools: {} }, { resources: { subscribe: false }, logging: {} }])).toEqual({
      tools: { listChanged: true },
      resources: { listChanged: true, subscribe: false },
      logging: {},
    });
    expect(unionCapabilities([{ tools: {} }, { prompts: {}, resources: { subscribe: true }, completions: {} }])).toMatchObject({
      prompts: { listChanged: true },
      resources: { subscribe: true },
      completions: {},
    });
  });
  it("offers everything while a server is unknown", () => {
    expect(unionCapabilities([{ tools: {} }, undefined])).toEqual(ALL_CAPABILITIES);
  });
});

describe("joinInstructions", () => {
  it("passes one server's instructions through and labels several", () => {
    expect(joinInstructions([{ server: "a", instructions: "use me" }])).toBe("use me");
    expect(joinInstructions([{ server: "a", instructions: "x" }, { server: "b", instructions: undefined }])).toBe("## a\nx");
    expect(joinInstructions([{ server: "a", instructions: "" }])).toBeUndefined();
  });
});
