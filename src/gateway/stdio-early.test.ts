/**
 * BoundedStdioTransport after early answers (early-stdio.ts): the gateway's own answer to a request answered early is
 * dropped by the request it answers, never by its id alone. A client may use an id again once it has its answer, and
 * it had the early ones before the gateway read those requests (SECURITY.md boundary 10).
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { AnswerRecord, RecordedAnswer } from "./answer-record.ts";
import { idKey, type EarlyHandover } from "./early-stdio.ts";
import { BoundedStdioTransport } from "./stdio.ts";

const INIT_RESULT = '{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"mcpbox","version":"0"}}';
const LIST_RESULT = '{"tools":[{"name":"a__echo","inputSchema":{"type":"object"}}]}';
const line = (m: unknown) => `${JSON.stringify(m)}\n`;
const tick = () => new Promise((r) => setImmediate(r));

function setUp(listId: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  const puts: RecordedAnswer[] = [];
  const record: AnswerRecord = { empty: () => false, find: () => undefined, put: (a) => void puts.push(a) };
  const init = line({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
  const rest = line({ jsonrpc: "2.0", method: "notifications/initialized" }) + line({ jsonrpc: "2.0", id: listId, method: "tools/list" });
  const early: EarlyHandover = {
    buffered: Buffer.from(init + rest),
    ended: false,
    initializeEnd: Buffer.byteLength(init),
    answered: [
      { key: idKey(1), method: "initialize", params: "{}", result: INIT_RESULT },
      { key: idKey(listId), method: "tools/list", params: "null", result: LIST_RESULT },
    ],
    record,
  };
  stdin.pause();
  const t = new BoundedStdioTransport(stdin, stdout, undefined, early);
  const got: { id?: string | number; method?: string }[] = [];
  t.onmessage = (m) => void got.push(m as (typeof got)[number]);
  const lines = () => out.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { id?: unknown; result?: unknown; method?: unknown });
  return { t, stdin, got, puts, lines };
}

describe("BoundedStdioTransport with early answers", () => {
  it("a request with the id of the tools/list answered early, answered first, keeps its answer; the gateway's list is dropped", async () => {
    const s = setUp(2);
    await s.t.start();
    const init = s.got.find((m) => m.method === "initialize")!;
    await s.t.send({ jsonrpc: "2.0", id: init.id!, result: JSON.parse(INIT_RESULT) as Record<string, unknown> });
    await tick();
    const list = s.got.find((m) => m.method === "tools/list")!;
    s.stdin.write(line({ jsonrpc: "2.0", id: 2, method: "ping" })); // id 2 had its answer: the client may use it again
    await tick();
    const ping = s.got.find((m) => m.method === "ping")!;
    expect(ping.id).toBe(2);
    await s.t.send({ jsonrpc: "2.0", id: 2, result: {} }); // the ping is answered before the list
    await s.t.send({ jsonrpc: "2.0", id: list.id!, result: JSON.parse(LIST_RESULT) as Record<string, unknown> });
    expect(s.lines()).toEqual([{ jsonrpc: "2.0", id: 2, result: {} }]); // without the fix: the ping's answer dropped, the list sent as id 2
    expect(s.puts).toEqual([]); // both agreed with the early answers: nothing recorded anew
  });

  it("initialize and tools/list answered early under one id: each gateway answer is its own request's", async () => {
    const s = setUp(1);
    await s.t.start();
    const init = s.got.find((m) => m.method === "initialize")!;
    await s.t.send({ jsonrpc: "2.0", id: init.id!, result: JSON.parse(INIT_RESULT) as Record<string, unknown> });
    await tick();
    const list = s.got.find((m) => m.method === "tools/list");
    expect(list).toBeDefined(); // without the fix: held for ever (the initialize answer was taken for the list's)
    await s.t.send({ jsonrpc: "2.0", id: list!.id!, result: JSON.parse(LIST_RESULT) as Record<string, unknown> });
    expect(s.lines()).toEqual([]);
    expect(s.puts).toEqual([]); // without the fix: the initialize answer recorded as the tools/list one
  });

  it("an answer to a noted request not answered early goes out with the client's id", async () => {
    const s = setUp(2);
    await s.t.start();
    const init = s.got.find((m) => m.method === "initialize")!;
    expect(init.id).not.toBe(1); // the gateway sees an id of the transport's own
    await s.t.send({ jsonrpc: "2.0", id: init.id!, result: JSON.parse(INIT_RESULT) as Record<string, unknown> });
    await tick();
    s.stdin.write(line({ jsonrpc: "2.0", id: "again", method: "initialize", params: { x: 1 } }));
    await tick();
    const again = s.got.filter((m) => m.method === "initialize")[1]!;
    await s.t.send({ jsonrpc: "2.0", id: again.id!, error: { code: -32600, message: "already initialized" } });
    expect(s.lines()).toEqual([{ jsonrpc: "2.0", id: "again", error: { code: -32600, message: "already initialized" } }]);
  });

  it("a cancel of a noted request the client waits for reaches the gateway under the id it went on with", async () => {
    const s = setUp(2);
    await s.t.start();
    const init = s.got.find((m) => m.method === "initialize")!;
    await s.t.send({ jsonrpc: "2.0", id: init.id!, result: JSON.parse(INIT_RESULT) as Record<string, unknown> });
    await tick();
    s.stdin.write(line({ jsonrpc: "2.0", id: 9, method: "initialize", params: { y: 1 } }));
    s.stdin.write(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } }));
    s.stdin.write(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } })); // answered early: left as it is
    await tick();
    const noted = s.got.filter((m) => m.method === "initialize")[1]!;
    const cancels = s.got.filter((m) => m.method === "notifications/cancelled") as { params: { requestId: unknown } }[];
    expect(cancels.map((c) => c.params.requestId)).toEqual([noted.id, 2]);
  });
});
