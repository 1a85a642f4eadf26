import { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import { demuxAttached } from "./_attach.ts";
import { FrameSplitter } from "./stream-frames.ts";

function frame(stream: number, text: string): Buffer {
  const body = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}

function split(chunks: Buffer[]): { stdout: string; stderr: string; pieces: number } {
  const out = { stdout: "", stderr: "", pieces: 0 };
  const s = new FrameSplitter((which, bytes) => {
    out[which] += bytes.toString("latin1");
    out.pieces++;
  });
  for (const c of chunks) s.push(c);
  return out;
}

describe("FrameSplitter", () => {
  const stream = Buffer.concat([frame(1, "hello\n"), frame(2, "warn\n"), frame(0, "in"), frame(1, ""), frame(1, "world\n")]);

  it("hands each payload to its stream, stdin frames as stderr, whatever the chunking (every cut, one byte at a time)", () => {
    const want = { stdout: "hello\nworld\n", stderr: "warn\nin" };
    expect(split([stream])).toMatchObject(want);
    for (let cut = 1; cut < stream.length; cut++) expect(split([stream.subarray(0, cut), stream.subarray(cut)])).toMatchObject(want);
    expect(split([...stream].map((b) => Buffer.from([b])))).toMatchObject(want);
  });

  it("passes a payload inside one chunk as a view of it, without a copy", () => {
    const chunk = frame(1, "x".repeat(100));
    const views: Buffer[] = [];
    new FrameSplitter((_w, bytes) => views.push(bytes)).push(chunk);
    expect(views).toHaveLength(1);
    expect(views[0]!.buffer).toBe(chunk.buffer);
    expect(views[0]!.byteOffset).toBe(chunk.byteOffset + 8);
  });

  it("takes a header naming no stream for an unframed connection: it and everything after are stdout, as docker-modem did", () => {
    const raw = Buffer.from('{"jsonrpc":"2.0"}\n');
    expect(split([frame(1, "a"), raw, frame(2, "b")])).toMatchObject({ stdout: `a${raw.toString()}${frame(2, "b").toString("latin1")}`, stderr: "" });
    // the bad header split across chunks
    expect(split([raw.subarray(0, 3), raw.subarray(3)]).stdout).toBe(raw.toString());
  });
});

describe("demuxAttached", () => {
  it("holds what the container wrote before the transport listened, then delivers it in order, then the end", async () => {
    const socket = new Duplex({ read() {}, write: (_c, _e, done) => done() });
    const { stdout, stderr } = demuxAttached(socket);
    socket.push(frame(1, "early\n"));
    socket.push(frame(2, "err\n"));
    await new Promise((r) => setImmediate(r));
    const seen: string[] = [];
    stdout.on("data", (b: Buffer) => seen.push(b.toString()));
    stdout.once("end", () => seen.push("end"));
    stdout.once("close", () => seen.push("close"));
    socket.push(frame(1, "later\n"));
    socket.push(null);
    let err = "";
    stderr.on("data", (b: Buffer) => (err += b.toString()));
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(["early\n", "later\n", "end", "close"]);
    expect(err).toBe("err\n");
  });

  it("ends stdout once when the connection fails", async () => {
    const socket = new Duplex({ read() {}, write: (_c, _e, done) => done() });
    const { stdout } = demuxAttached(socket);
    const seen: string[] = [];
    stdout.on("data", (b: Buffer) => seen.push(b.toString()));
    stdout.on("end", () => seen.push("end"));
    await new Promise((r) => setImmediate(r));
    socket.push(frame(1, "a"));
    socket.destroy(new Error("reset"));
    socket.on("error", () => {});
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(["a", "end"]);
  });
});
