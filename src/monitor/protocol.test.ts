import { describe, expect, it } from "vitest";
import { lineSplitter, MAX_LINE_BYTES, parseCommand, parseMessage } from "./protocol.ts";

describe("monitor protocol", () => {
  it("reads commands and ignores what it does not know", () => {
    expect(parseCommand('{"type":"restart","server":"x","id":3}')).toEqual({ type: "restart", server: "x", id: 3 });
    expect(parseCommand('{"type":"restart"}')).toBeUndefined();
    expect(parseCommand('{"type":"rm -rf"}')).toBeUndefined();
    expect(parseCommand("not json")).toBeUndefined();
  });

  it("accepts only messages of its version", () => {
    expect(parseMessage('{"v":1,"type":"stderr","at":1,"server":"a","line":"x"}')).toMatchObject({ type: "stderr" });
    expect(parseMessage('{"v":2,"type":"stderr"}')).toBeUndefined();
    expect(parseMessage("{")).toBeUndefined();
  });

  it("splits lines across chunks and gives up on a line that never ends", () => {
    const lines: string[] = [];
    let overflows = 0;
    const feed = lineSplitter((l) => lines.push(l), () => overflows++);
    feed('{"a":1}\n{"b"');
    feed(':2}\n\n');
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    const euro = Buffer.from('"€"\n');
    feed(euro.subarray(0, 2));
    feed(euro.subarray(2));
    expect(lines.at(-1)).toBe('"€"');
    feed("x".repeat(MAX_LINE_BYTES + 1));
    expect(overflows).toBe(1);
  });
});
