import { describe, expect, it } from "vitest";
import { shownJson } from "./tool-call.ts";

describe("the approval prompt's arguments", () => {
  it("escape every character that could hide or reorder text, astral ones too", () => {
    const shown = shownJson({ text: "a\u{E0041}b\uFE0Fc\u202ed\u3164e\u001b[2J\u2028é" });
    expect(shown).toBe(String.raw`{"text":"a\udb40\udc41b\ufe0fc\u202ed\u3164e\u001b[2J\u2028é"}`);
    expect(shownJson('x" with arguments {}')).toBe(String.raw`"x\" with arguments {}"`);
  });
});
