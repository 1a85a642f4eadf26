import { describe, expect, it } from "vitest";
import { ALL_CAPABILITIES, gatewayInstructions, joinInstructions, unionCapabilities } from "./capabilities.ts";

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

describe("gatewayInstructions", () => {
  it("adds a line for each server that could not start, after the servers' own", () => {
    const down = ["server gh is not available: secret TOKEN needs the environment variable GH_TOKEN, which is not set"];
    expect(gatewayInstructions([{ server: "a", instructions: undefined }, { server: "gh", instructions: undefined }], down)).toBe(
      `mcpbox: a server could not start, so its tools are missing:\n- ${down[0]}`,
    );
    expect(gatewayInstructions([{ server: "a", instructions: "use a" }, { server: "gh", instructions: undefined }], [...down, "server b is not available: x"])).toBe(
      `## a\nuse a\n\n## mcpbox\nmcpbox: some servers could not start, so their tools are missing:\n- ${down[0]}\n- server b is not available: x`,
    );
    expect(gatewayInstructions([{ server: "a", instructions: "use a" }], [])).toBe("use a");
  });
});
