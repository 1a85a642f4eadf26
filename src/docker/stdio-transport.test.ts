import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { ContainerStdioTransport, MessageTooLargeError, responseIdOf } from "./stdio-transport.ts";

function setup(maxMessageBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const nonJson: string[] = [];
  const t = new ContainerStdioTransport(stdin, stdout, { maxMessageBytes, onNonJsonLine: (l) => nonJson.push(l) });
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closes = 0;
  t.onmessage = (m) => messages.push(m);
  t.onerror = (e) => errors.push(e);
  t.onclose = () => closes++;
  return { t, stdin, stdout, nonJson, messages, errors, closes: () => closes };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("ContainerStdioTransport", () => {
  it("reads JSON-RPC lines and sends newline-delimited JSON", async () => {
    const x = setup();
    await x.t.start();
    x.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"notifications/x"}\n');
    await tick();
    expect(x.messages).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }, { jsonrpc: "2.0", method: "notifications/x" }]);
    await x.t.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect(x.stdin.read().toString()).toBe('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  });

  it("hands non-JSON and non-JSON-RPC lines to onNonJsonLine, not to onerror", async () => {
    const x = setup();
    await x.t.start();
    x.stdout.write('Starting server...\n{"level":"info"}\n{broken\n{"jsonrpc":"2.0","id":1,"result":{}}\n');
    await tick();
    expect(x.nonJson).toEqual(["Starting server...", '{"level":"info"}', "{broken"]);
    expect(x.messages).toHaveLength(1);
    expect(x.errors).toEqual([]);
  });

  it("drops an oversized response and fails its request with a clear error", async () => {
    const x = setup(100);
    await x.t.start();
    x.stdout.write(`{"result":{"text":"${"a".repeat(200)}"},"jsonrpc":"2.0","id":7}\n`);
    x.stdout.write(`{"jsonrpc":"2.0","method":"n","params":{"t":"${"b".repeat(200)}"}}\n`);
    x.stdout.write('{"jsonrpc":"2.0","id":8,"result":{}}\n');
    await tick();
    expect(x.errors).toHaveLength(2);
    expect(x.errors[0]).toBeInstanceOf(MessageTooLargeError);
    expect(x.messages[0]).toMatchObject({ id: 7, error: { code: -32603 } });
    expect((x.messages[0] as { error: { message: string } }).error.message).toMatch(/larger than .* limit/);
    expect(x.messages[1]).toEqual({ jsonrpc: "2.0", id: 8, result: {} });
    expect(x.messages).toHaveLength(2);
  });

  it("finds a response id at the start or the end, never for a request", () => {
    const info = (head: string, tail = "") => ({ head: Buffer.from(head), tail: Buffer.from(tail), bytes: 0 });
    expect(responseIdOf(info('{"jsonrpc":"2.0","id":"a-1","result":{"x'))).toBe("a-1");
    expect(responseIdOf(info('{"result":{"content":[', '"jsonrpc":"2.0","id":12}'))).toBe(12);
    expect(responseIdOf(info('{"method":"sampling/createMessage","params":{', '"jsonrpc":"2.0","id":3}'))).toBeUndefined();
    expect(responseIdOf(info('{"result":{', '{"id":5}]}}'))).toBeUndefined(); // a nested id is not taken
  });

  it("fires onclose once when stdout ends, and on close()", async () => {
    const x = setup();
    await x.t.start();
    x.stdout.end('{"jsonrpc":"2.0","id":1,"result":{}}');
    await tick();
    expect(x.messages).toHaveLength(1);
    expect(x.closes()).toBe(1);
    await x.t.close();
    expect(x.closes()).toBe(1);
    await expect(x.t.send({ jsonrpc: "2.0", id: 1, method: "ping" })).rejects.toThrow(/closed/);

    const y = setup();
    await y.t.start();
    await y.t.close();
    expect(y.stdin.writableEnded).toBe(true);
    expect(y.closes()).toBe(1);
  });

  it("reads from the start and delivers what came before start(), bounded", async () => {
    const x = setup();
    x.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}\nbanner\n');
    for (let i = 0; i < 3000; i++) x.stdout.write('{"jsonrpc":"2.0","method":"notifications/flood"}\n');
    x.stdout.end();
    await tick();
    expect(x.stdout.readableLength).toBe(0); // consumed, not buffered
    expect(x.nonJson).toEqual(["banner"]);
    expect(x.messages).toEqual([]);
    await x.t.start();
    expect(x.messages[0]).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(x.messages.length).toBeLessThanOrEqual(1000);
    expect(x.closes()).toBe(1);
  });

  it("waits for the stream to drain when it pushes back", async () => {
    const x = setup();
    await x.t.start();
    const big = { jsonrpc: "2.0" as const, id: 1, method: "x", params: { s: "z".repeat(64 * 1024) } };
    let done = false;
    const sent = x.t.send(big).then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    x.stdin.resume();
    await sent;
    expect(done).toBe(true);
  });
});
