import { describe, expect, it } from "vitest";
import { hasTerminalControls, terminalLine, terminalText } from "./terminal.ts";

// eslint-disable-next-line no-control-regex
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe("terminalText", () => {
  it("keeps plain text, tabs, newlines and Unicode as they are", () => {
    for (const s of ["", "hello", "a\tb\nc", "naïve café 日本語 🦀 — ok", "50% [x] ~/a \\ b"]) expect(terminalText(s)).toBe(s);
  });
  it("drops CSI sequences whole, 7-bit and 8-bit", () => {
    expect(terminalText("\x1b[2J\x1b[1;31mred\x1b[0m \x1b[?1049h")).toBe("red ");
    expect(terminalText("a\u009b31mb\u009b2Jc")).toBe("abc");
    expect(terminalText("x\x1b[38;5;196my")).toBe("xy");
  });
  it("drops OSC, DCS, SOS, PM and APC strings with either terminator", () => {
    expect(terminalText("a\x1b]0;pwned\x07b")).toBe("ab");
    expect(terminalText("a\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\b")).toBe("alinkb");
    expect(terminalText("a\x1bPq#0;2;0;0;0\x1b\\b")).toBe("ab");
    expect(terminalText("a\u009d0;title\u009cb")).toBe("ab");
    expect(terminalText("a\x1b_apc\x07\x1b^pm\x07\x1bXsos\x1b\\b")).toBe("ab");
    expect(terminalText("a\u00900;1|data\u009cb")).toBe("ab");
  });
  it("leaves no ESC behind from cut-off or odd sequences", () => {
    for (const s of ["\x1b", "a\x1b", "\x1b[", "\x1b[31", "\x1b]0;never ended", "\x1b\x1b[31m", "\x1b(B\x1bc\x1b7\x1b#8", "\u009b", "\u009d0;x", "\x1b\u009b1m"]) {
      const clean = terminalText(s);
      expect(clean, JSON.stringify(s)).not.toMatch(RAW);
    }
    expect(terminalText("\x1b]0;never ended")).toBe("0;never ended");
    expect(terminalText("a\x1b")).toBe("a\\x1b");
    expect(terminalText("\x1b\x01")).toBe("\\x1b\\x01");
  });
  it("shows other controls as visible escapes, and drops a CR that ends a line", () => {
    expect(terminalText("ok\rFAKE")).toBe("ok\\rFAKE");
    expect(terminalText("line\r\nnext\r")).toBe("line\nnext");
    expect(terminalText("bell\x07 bs\x08 del\x7f nul\x00 nel\u0085")).toBe("bell\\x07 bs\\x08 del\\x7f nul\\x00 nel\\x85");
    expect(terminalText("abc\u202edcba\u2066x\u2028y")).toBe("abc\\u202edcba\\u2066x\\u2028y");
  });
  it("stays linear on hostile input", () => {
    const s = "\x1b]".repeat(200_000) + "\u009d".repeat(200_000) + "\x1b[".repeat(200_000);
    const start = performance.now();
    expect(terminalText(s)).not.toMatch(RAW);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

describe("terminalLine", () => {
  it("shows newlines too, so a server cannot forge a line", () => {
    expect(terminalLine("error\nmcpbox: all good")).toBe("error\\nmcpbox: all good");
    expect(terminalLine("tab\tkept")).toBe("tab\tkept");
  });
  it("reports what it would change", () => {
    expect(hasTerminalControls("plain")).toBe(false);
    expect(hasTerminalControls("a\u009bb")).toBe(true);
  });
});
