import { describe, expect, it } from "vitest";
import { LineSplitter, type OversizeLine } from "./line-splitter.ts";

function collect(max: number, keep = 4) {
  const lines: string[] = [];
  const over: OversizeLine[] = [];
  const s = new LineSplitter(max, { line: (b) => lines.push(b.toString()), oversize: (o) => over.push(o) }, keep);
  return { s, lines, over };
}

describe("LineSplitter", () => {
  it("splits lines across and within chunks, dropping CR of CRLF", () => {
    const { s, lines } = collect(100);
    s.push(Buffer.from("a\nbc"));
    s.push(Buffer.from("d\r\n\ne"));
    s.push(Buffer.from("f\n"));
    expect(lines).toEqual(["a", "bcd", "", "ef"]);
  });

  it("delivers a last line without a newline at the end", () => {
    const { s, lines } = collect(100);
    s.push(Buffer.from("x\ny"));
    s.end();
    expect(lines).toEqual(["x", "y"]);
  });

  it("reports an oversized line with its head, tail and length, then carries on", () => {
    const { s, lines, over } = collect(10);
    s.push(Buffer.from("ok\n0123456"));
    s.push(Buffer.from("789abcdef"));
    s.push(Buffer.from("XYZ\nafter\n"));
    expect(lines).toEqual(["ok", "after"]);
    expect(over).toHaveLength(1);
    expect(over[0]!.head.toString()).toBe("0123");
    expect(over[0]!.tail.toString()).toBe("fXYZ");
    expect(over[0]!.bytes).toBe(19);
  });

  it("accepts a line of exactly the limit", () => {
    const { s, lines, over } = collect(5);
    s.push(Buffer.from("12345\n123456\n"));
    expect(lines).toEqual(["12345"]);
    expect(over).toHaveLength(1);
  });

  it("keeps bounded memory whatever is printed", () => {
    const { s, over } = collect(1024);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 200; i++) s.push(chunk);
    expect((s as unknown as { size: number }).size).toBe(0);
    s.push(Buffer.from("\n"));
    expect(over[0]!.bytes).toBe(200 * 64 * 1024);
  });
});
