import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { BoundedStdioTransport } from "./stdio.ts";

function setup(max = 100) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = new BoundedStdioTransport(stdin, stdout, max);
  const messages: unknown[] = [];
  const written: string[] = [];
  t.onmessage = (m) => messages.push(m);
  stdout.on("data", (d: Buffer) => written.push(...d.toString().split("\n").filter(Boolean)));
  return { stdin, t, messages, written: () => written.map((l) => JSON.parse(l)) };
}

describe("BoundedStdioTransport", () => {
  it("reads messages split across chunks", async () => {
    const s = setup();
    await s.t.start();
    s.stdin.write('{"jsonrpc":"2.0","id":1,"me');
    s.stdin.write('thod":"ping"}\n{"jsonrpc":"2.0","method":"x"}\n');
    await new Promise((r) => setImmediate(r));
    expect(s.messages).toEqual([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "x" },
    ]);
  });

  it("answers garbage and oversized lines, then keeps reading", async () => {
    const s = setup(100);
    await s.t.start();
    s.stdin.write("not json\n");
    s.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"${"x".repeat(200)}"}\n`);
    s.stdin.write('{"id":3}\n{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
    await new Promise((r) => setImmediate(r));
    expect(s.messages).toEqual([{ jsonrpc: "2.0", id: 4, method: "ping" }]);
    const codes = s.written().map((m) => [m.id, m.error.code]);
    expect(codes).toEqual([
      [undefined, -32700],
      [undefined, -32600],
      [3, -32600],
    ]);
  });

  it("takes every line of one read, an oversized one among them, and keeps the rest for the next read", async () => {
    const s = setup(100);
    await s.t.start();
    const big = `{"jsonrpc":"2.0","id":2,"method":"${"x".repeat(200)}"}`;
    s.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"a"}\n${big}\n{"jsonrpc":"2.0","id":3,"method":"b"}\n{"jsonrpc":"2.0",`);
    s.stdin.write(`"id":4,"method":"c"}\n${"y".repeat(150)}`);
    s.stdin.write('z\n{"jsonrpc":"2.0","id":5,"method":"d"}\n');
    await new Promise((r) => setImmediate(r));
    expect(s.messages.map((m) => (m as { id: number }).id)).toEqual([1, 3, 4, 5]);
    expect(s.written().map((m) => [m.id, m.error.code])).toEqual([
      [undefined, -32600],
      [undefined, -32600],
    ]);
  });

  it("reports the end of stdin as close", async () => {
    const s = setup();
    let closed = false;
    s.t.onclose = () => (closed = true);
    await s.t.start();
    s.stdin.end();
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(true);
  });
});

describe("BoundedStdioTransport lines", () => {
  it("takes CRLF lines, skips blank ones and hands parsed JSON to an interceptor first", async () => {
    const s = setup();
    const seen: unknown[] = [];
    s.t.intercept = (m) => (seen.push(m), (m as { id?: number }).id === 2);
    await s.t.start();
    s.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n\n  \n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await new Promise((r) => setImmediate(r));
    expect(seen).toHaveLength(2);
    expect(s.messages).toEqual([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    expect(s.written()).toEqual([]);
  });
});

describe("BoundedStdioTransport writes", () => {
  it("sends the first line of a turn of the event loop at once and the rest of the turn in one write, in order, send() among them", async () => {
    const writes: string[] = [];
    const stdout = new Writable({
      writev(chunks, done) {
        writes.push(chunks.map((c) => String(c.chunk)).join(""));
        done();
      },
      write(chunk, _enc, done) {
        writes.push(String(chunk));
        done();
      },
    });
    const t = new BoundedStdioTransport(new PassThrough(), stdout);
    await t.start();
    expect(t.sendLine('{"jsonrpc":"2.0","id":1,"result":{}}')).toBe(true);
    void t.send({ jsonrpc: "2.0", id: 2, result: {} });
    t.sendLine('{"jsonrpc":"2.0","id":3,"result":{}}');
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n']); // the first waits for nothing
    await new Promise((r) => setImmediate(r));
    expect(writes).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n', '{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc":"2.0","id":3,"result":{}}\n']);
    t.sendLine('{"jsonrpc":"2.0","id":4,"result":{}}');
    expect(writes).toHaveLength(3); // a new turn: at once again
    expect(writes[2]).toBe('{"jsonrpc":"2.0","id":4,"result":{}}\n');
  });
});
