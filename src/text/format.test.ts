import { describe, expect, it } from "vitest";
import { bar, bytes, duration, fit, printable, uptime } from "./format.ts";

describe("format", () => {
  it("fits text to a width", () => {
    expect(fit("everything-else", 10)).toBe("everythin…");
    expect(fit("7", 3, "right")).toBe("  7");
  });
  it("keeps sizes, durations and uptimes short", () => {
    expect([bytes(512 << 20), bytes(1.5 * 2 ** 30), bytes(900 * 1024), bytes(undefined)]).toEqual(["512M", "1.5G", "900K", "-"]);
    expect([0.42, 9.96, 340, 999.7, 1234, 45_000, 180_000].map(duration)).toEqual(["0.4ms", "10ms", "340ms", "1.0s", "1.2s", "45s", "3m"]);
    expect([45, 725, 11_220, 187_200].map((s) => uptime(0, s * 1000))).toEqual(["45s", "12m05s", "3h07m", "2d04h"]);
  });
  it("draws a bar against the limit in eighths", () => {
    expect(bar(256, 512, 5)).toBe("██▌··");
    expect(bar(1, 512, 5)).toBe("▏····");
    expect(bar(undefined, 512, 5)).toBe("·····");
    expect(bar(2048, 512, 5)).toBe("█████");
  });
  it("drops what would move the cursor", () => {
    expect(printable("\x1b[2Jred\x1b[31m\ttext\r")).toBe("red  text");
    expect(printable("\x1b]0;pwned\x07a\u009b2Jb\rc\nd")).toBe("ab\\rc\\nd");
    expect(fit("\x1b]0;t\x07\x1b[31mtool\u009b1m", 6)).toBe("tool  ");
  });
});
