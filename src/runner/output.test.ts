import { describe, expect, it } from "vitest";
import { OutputCollector } from "./output.ts";

const frame = (stream: 1 | 2, text: string | Buffer) => {
  const body = typeof text === "string" ? Buffer.from(text) : text;
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
};

describe("OutputCollector", () => {
  it("splits stdout and stderr frames", () => {
    const c = new OutputCollector(100);
    c.push(Buffer.concat([frame(1, "out "), frame(2, "err"), frame(1, "more")]));
    expect(c.stdout).toEqual({ text: "out more", bytes: 8, truncated: false });
    expect(c.stderr).toEqual({ text: "err", bytes: 3, truncated: false });
  });

  it("reassembles frames and headers cut across chunks", () => {
    const all = Buffer.concat([frame(1, "hello"), frame(2, "oops"), frame(1, "")]);
    const c = new OutputCollector(100);
    for (let i = 0; i < all.length; i++) c.push(all.subarray(i, i + 1));
    expect(c.stdout.text).toBe("hello");
    expect(c.stderr.text).toBe("oops");
  });

  it("keeps at most the cap per stream and counts the rest", () => {
    const c = new OutputCollector(10);
    for (let i = 0; i < 1000; i++) c.push(frame(1, "0123456789abcdef"));
    c.push(frame(2, "short"));
    expect(c.stdout).toEqual({ text: "0123456789", bytes: 16_000, truncated: true });
    expect(c.stderr).toEqual({ text: "short", bytes: 5, truncated: false });
  });
});

const NONCE = "00ff00ff00ff00ff";
const ready = (nonce = NONCE) => `\0MCPBOX-READY:${nonce}\0`;
/** A collector that has seen the ready marks (nonce NONCE) on both streams. */
const readied = (maxBytes: number) => {
  const c = new OutputCollector(maxBytes);
  c.push(Buffer.concat([frame(1, ready()), frame(2, ready())]));
  return c;
};

describe("the exit trailer", () => {
  const trailer = (nonce: string, code: number, oom = 0) => `\0MCPBOX-EXIT:${nonce}:${code}:${oom}\0`;

  it("reads the status once the trailer came on both streams, and keeps it out of the output", () => {
    const c = readied(100);
    const t = trailer(NONCE, 137, 1);
    const all = Buffer.concat([frame(2, "warn\n" + t), frame(1, "out")]);
    for (let i = 0; i < all.length; i += 5) c.push(all.subarray(i, i + 5));
    expect(c.exitStatus).toBeUndefined();
    c.push(frame(1, t));
    expect(c.exitStatus).toBe(137);
    expect(c.oomKills).toBe(1);
    expect(c.stdout).toEqual({ text: "out", bytes: 3, truncated: false });
    expect(c.stderr).toEqual({ text: "warn\n", bytes: 5, truncated: false });
  });

  it("ignores a trailer with another nonce", () => {
    const c = readied(100);
    c.push(Buffer.concat([frame(1, trailer(NONCE, 0)), frame(2, trailer("1234123412341234", 0))]));
    expect(c.exitStatus).toBeUndefined();
  });

  it("counts no trailer before both ready marks, nor under marks whose nonces differ", () => {
    const early = new OutputCollector(100);
    early.push(Buffer.concat([frame(1, "out" + trailer(NONCE, 0)), frame(2, trailer(NONCE, 0))]));
    expect(early.exitStatus).toBeUndefined();
    expect(early.stdout.text).toBe("out" + trailer(NONCE, 0));
    const split = new OutputCollector(100);
    split.push(Buffer.concat([frame(1, ready()), frame(2, ready("1234123412341234"))]));
    expect(split.ready).toEqual({ stdout: false, stderr: false });
    split.push(Buffer.concat([frame(1, trailer(NONCE, 0)), frame(2, trailer(NONCE, 0))]));
    expect(split.exitStatus).toBeUndefined();
  });

  it("finds the trailer after stderr was cut", () => {
    const c = readied(4);
    c.push(frame(2, "x".repeat(1000)));
    c.push(Buffer.concat([frame(2, trailer(NONCE, 0)), frame(1, trailer(NONCE, 0))]));
    expect(c.exitStatus).toBe(0);
    expect(c.stderr).toEqual({ text: "xxxx", bytes: 1000, truncated: true });
  });
});

describe("the ready marks", () => {
  const READY_TEXT = ready();

  it("are stripped from the start of each stream, even split across frames", () => {
    const c = new OutputCollector(100);
    c.push(frame(1, READY_TEXT.slice(0, 4)));
    expect(c.ready).toEqual({ stdout: false, stderr: false });
    c.push(Buffer.concat([frame(1, READY_TEXT.slice(4) + "hi"), frame(2, READY_TEXT)]));
    expect(c.ready).toEqual({ stdout: true, stderr: true });
    expect(c.stdout.text).toBe("hi");
    expect(c.stderr).toEqual({ text: "", bytes: 0, truncated: false });
  });

  it("leave other output alone", () => {
    const c = new OutputCollector(100);
    c.push(Buffer.concat([frame(1, "\0MCPBOX-X"), frame(2, "plain")]));
    expect(c.ready).toEqual({ stdout: false, stderr: false });
    expect(c.stdout.text).toBe("\0MCPBOX-X");
    expect(c.stderr.text).toBe("plain");
    const bad = new OutputCollector(100);
    bad.push(Buffer.concat([frame(1, "\0MCPBOX-READY:not-hex-not-hex!\0"), frame(2, ready())]));
    expect(bad.ready).toEqual({ stdout: false, stderr: true });
    expect(bad.stdout.text).toBe("\0MCPBOX-READY:not-hex-not-hex!\0");
  });
});
