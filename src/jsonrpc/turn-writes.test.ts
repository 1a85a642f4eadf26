import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { chunkOfLines, severalLines, turnGatherer } from "./turn-writes.ts";

/** A stream that records each write it is handed (a writev of corked lines is one entry). */
function recorder() {
  const writes: string[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      writes.push(String(chunk));
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map((c) => String(c.chunk)).join(""));
      done();
    },
  });
  const gather = turnGatherer(out);
  return { writes, write: (line: string) => (gather(), out.write(line)) };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

describe("turn gatherer", () => {
  it("sends the first line of a turn at once and the rest of the turn in one write", async () => {
    const a = recorder();
    a.write("1\n");
    expect(a.writes).toEqual(["1\n"]);
    a.write("2\n");
    a.write("3\n");
    expect(a.writes).toEqual(["1\n"]);
    await tick();
    expect(a.writes).toEqual(["1\n", "2\n3\n"]);
    a.write("4\n"); // a new turn: at once again
    expect(a.writes).toEqual(["1\n", "2\n3\n", "4\n"]);
  });

  it("sends what a chunk of several lines made in one write per stream when the chunk is done, in order", async () => {
    const a = recorder();
    const b = recorder();
    chunkOfLines(() => {
      a.write("1\n");
      b.write("x\n");
      a.write("2\n");
      chunkOfLines(() => a.write("3\n")); // nested: the outer chunk's end sends it
      expect(a.writes).toEqual([]);
      expect(b.writes).toEqual([]);
    });
    expect(a.writes).toEqual(["1\n2\n3\n"]);
    expect(b.writes).toEqual(["x\n"]);
    a.write("4\n"); // the same turn after the chunk: gathered until its end
    expect(a.writes).toEqual(["1\n2\n3\n"]);
    await tick();
    expect(a.writes).toEqual(["1\n2\n3\n", "4\n"]);
  });

  it("sends a chunk's lines even when its handling throws", () => {
    const a = recorder();
    expect(() =>
      chunkOfLines(() => {
        a.write("1\n");
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(a.writes).toEqual(["1\n"]);
  });

  it("tells several lines from one", () => {
    expect(severalLines(Buffer.from('{"a":1}\n'))).toBe(false);
    expect(severalLines(Buffer.from('{"a":1}\n{"b"'))).toBe(false);
    expect(severalLines(Buffer.from("\n\n"))).toBe(true);
    expect(severalLines(Buffer.from(""))).toBe(false);
  });
});
