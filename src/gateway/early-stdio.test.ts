import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { AnswerRecord, RecordedAnswer } from "./answer-record.ts";
import { EarlyStdio, idKey } from "./early-stdio.ts";

const INIT_PARAMS = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } };
const INIT_RESULT = '{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"mcpbox","version":"0"}}';
const LIST_RESULT = '{"tools":[{"name":"a__echo","inputSchema":{"type":"object"}}]}';

function record(answers: RecordedAnswer[]): AnswerRecord {
  return {
    empty: () => answers.length === 0,
    find: (method, params) => answers.find((a) => a.method === method && a.params === params)?.result,
    put: () => {},
  };
}
const RECORDED = record([
  { method: "initialize", params: JSON.stringify(INIT_PARAMS), result: INIT_RESULT },
  { method: "tools/list", params: "null", result: LIST_RESULT },
]);

function streams() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  return { stdin, stdout, out: () => out };
}
const line = (m: unknown) => `${JSON.stringify(m)}\n`;
const initialize = (id: unknown = 1, params: unknown = INIT_PARAMS) => line({ jsonrpc: "2.0", id, method: "initialize", params });
const initialized = line({ jsonrpc: "2.0", method: "notifications/initialized" });
const list = (id: unknown = 2) => line({ jsonrpc: "2.0", id, method: "tools/list" });

describe("EarlyStdio", () => {
  it("answers a recorded initialize and first tools/list with the client's ids, and hands every byte over", async () => {
    const s = streams();
    const early = new EarlyStdio(s.stdin, s.stdout, Promise.resolve(RECORDED));
    await new Promise((r) => setImmediate(r));
    const first = initialize("a");
    s.stdin.write(first + initialized);
    s.stdin.write(list(7));
    await early.done;
    const answers = s.out().trim().split("\n").map((l) => JSON.parse(l));
    expect(answers).toEqual([
      { jsonrpc: "2.0", id: "a", result: JSON.parse(INIT_RESULT) },
      { jsonrpc: "2.0", id: 7, result: JSON.parse(LIST_RESULT) },
    ]);
    const h = early.handover();
    expect(h.buffered.toString()).toBe(first + initialized + list(7));
    expect(h.initializeEnd).toBe(Buffer.byteLength(first));
    expect(h.answered.map((a) => a.key)).toEqual([idKey("a"), idKey(7)]);
    expect(h.ended).toBe(false);
  });

  it("answers nothing for params it has no answer for, and stops at the first such line", async () => {
    const s = streams();
    const early = new EarlyStdio(s.stdin, s.stdout, Promise.resolve(RECORDED));
    await new Promise((r) => setImmediate(r));
    const other = initialize(1, { ...INIT_PARAMS, protocolVersion: "2025-06-18" });
    s.stdin.write(other);
    await early.done;
    expect(s.out()).toBe("");
    const h = early.handover();
    expect(h.buffered.toString()).toBe(other);
    expect(h.initializeEnd).toBeUndefined();
    expect(h.answered).toHaveLength(0);
  });

  it("stops after initialize at any other request: it and what follows are the gateway's", async () => {
    const s = streams();
    const early = new EarlyStdio(s.stdin, s.stdout, Promise.resolve(RECORDED));
    await new Promise((r) => setImmediate(r));
    const ping = line({ jsonrpc: "2.0", id: 2, method: "ping" });
    s.stdin.write(initialize() + ping + list(3));
    await early.done;
    expect(s.out().trim().split("\n")).toHaveLength(1);
    expect(early.handover().buffered.toString()).toBe(initialize() + ping + list(3));
  });

  it("refuses what is not a JSON-RPC request of the recorded kind (garbage, a batch, a deep line)", async () => {
    for (const first of ["not json\n", `[${initialize().trim()}]\n`, `${"[".repeat(200)}\n`, line({ id: 1, method: "initialize", params: INIT_PARAMS })]) {
      const s = streams();
      const early = new EarlyStdio(s.stdin, s.stdout, Promise.resolve(RECORDED));
      await new Promise((r) => setImmediate(r));
      s.stdin.write(first);
      await early.done;
      expect(s.out()).toBe("");
      expect(early.handover().buffered.toString()).toBe(first);
    }
  });

  it("reads nothing without a record, or with an empty one", async () => {
    for (const r of [undefined, record([])]) {
      const s = streams();
      const early = new EarlyStdio(s.stdin, s.stdout, Promise.resolve(r));
      await early.done;
      s.stdin.write(initialize());
      await new Promise((res) => setImmediate(res));
      expect(s.out()).toBe("");
      expect(s.stdin.readableFlowing).toBe(null); // never read: the transport reads it all
      expect(early.handover().buffered.length).toBe(0);
    }
  });

  it("ends the initialize's line at its byte: a character split between reads, or a byte that is no UTF-8, moves nothing", async () => {
    const params = { ...INIT_PARAMS, clientInfo: { name: "c\u00e9\u{1F600}\ufffd", version: "1" } };
    const rec = record([{ method: "initialize", params: JSON.stringify(params), result: INIT_RESULT }]);
    const s = streams();
    const early = new EarlyStdio(s.stdin, s.stdout, Promise.resolve(rec));
    await new Promise((r) => setImmediate(r));
    // the name as a client wrote it: é split between two reads, 😀, and a lone 0xff byte (read as U+FFFD)
    const text = initialize(1, params).replace("\ufffd", "\u0000");
    const bytes = Buffer.from(text);
    const zero = bytes.indexOf(0);
    bytes[zero] = 0xff;
    const split = bytes.indexOf(Buffer.from("\u00e9")) + 1;
    const ping = Buffer.from(line({ jsonrpc: "2.0", id: 2, method: "ping" }));
    s.stdin.write(bytes.subarray(0, split));
    s.stdin.write(Buffer.concat([bytes.subarray(split), ping]));
    await early.done;
    expect(s.out().trim().split("\n")).toHaveLength(1);
    const h = early.handover();
    expect(h.initializeEnd).toBe(bytes.length); // a string count made it 2 + 2 bytes longer: into the ping's line
  });

  it("takes only the ids the gateway's SDK takes (a string or a safe integer)", async () => {
    for (const id of [1.5, 2 ** 60]) {
      const s = streams();
      const early = new EarlyStdio(s.stdin, s.stdout, Promise.resolve(RECORDED));
      await new Promise((r) => setImmediate(r));
      s.stdin.write(initialize(id));
      await early.done;
      expect(s.out()).toBe("");
    }
  });

  it("hands the end of stdin over", async () => {
    const s = streams();
    const early = new EarlyStdio(s.stdin, s.stdout, Promise.resolve(RECORDED));
    await new Promise((r) => setImmediate(r));
    s.stdin.end(initialize());
    await early.done;
    const h = early.handover();
    expect(h.ended).toBe(true);
    expect(h.buffered.toString()).toBe(initialize());
  });

  it("takes a client gone while its answers are written (EPIPE on stdout) as the end of the connection", async () => {
    const s = streams();
    const early = new EarlyStdio(s.stdin, s.stdout, Promise.resolve(RECORDED));
    await new Promise((r) => setImmediate(r));
    s.stdin.write(initialize());
    await new Promise((r) => setImmediate(r));
    // no listener of the transport yet: without one of its own, this error was uncaught (serve: "internal error")
    expect(() => s.stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }))).not.toThrow();
    await early.done;
    expect(early.handover().ended).toBe(true);
    expect(s.stdout.listenerCount("error")).toBe(0); // the transport's listener takes over
  });
});

