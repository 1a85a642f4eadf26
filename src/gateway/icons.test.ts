import { describe, expect, it } from "vitest";
import { withDataIcons, withDataIconsIn } from "./icons.ts";

const DATA = { src: "DATA:image/png;base64,AAAA" };
const ICONS = [{ src: "https://evil.example/x.png" }, { src: "file:///etc/passwd" }, { src: " data:x" }, { src: 1 }, null, "data:x", DATA];

describe("withDataIcons", () => {
  it("keeps data: icons only, drops the key when none is left, and leaves an item without icons as it is", () => {
    expect(withDataIcons({ name: "t", icons: ICONS })).toEqual({ name: "t", icons: [DATA] });
    expect(withDataIcons({ name: "t", icons: ICONS.slice(0, 5) })).toEqual({ name: "t" });
    expect(withDataIcons({ name: "t", icons: "data:x" })).toEqual({ name: "t" });
    const bare = { name: "t" };
    expect(withDataIcons(bare)).toBe(bare);
  });
});

describe("withDataIconsIn", () => {
  it("filters the icons of a result's content blocks and of its messages' content", () => {
    const link = { type: "resource_link", uri: "x://1", name: "1", icons: ICONS };
    expect(withDataIconsIn({ content: [{ type: "text", text: "a" }, link], isError: false })).toEqual({
      content: [{ type: "text", text: "a" }, { ...link, icons: [DATA] }],
      isError: false,
    });
    expect(withDataIconsIn({ messages: [{ role: "user", content: link }, null, { role: "user" }] })).toEqual({
      messages: [{ role: "user", content: { ...link, icons: [DATA] } }, null, { role: "user" }],
    });
  });

  it("gives back the very result when nothing in it has icons (nothing copied on the hot path)", () => {
    const r = { content: [{ type: "text", text: "a" }], structuredContent: { icons: [{ src: "https://x" }] } };
    expect(withDataIconsIn(r)).toBe(r);
    for (const v of [undefined, null, 1, "x", []]) expect(withDataIconsIn(v)).toBe(v);
  });
});
