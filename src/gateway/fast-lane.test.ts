/**
 * The fast lane's routing logic with an in-memory client channel and upstream (the end-to-end tests in test/ run the
 * same calls through `dist/mcpbox serve` and real containers).
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { legacyToolResult } from "./legacy-wrap.ts";
import { server, setup, tools } from "./_test-fast-lane.ts";

describe("fast lane", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("forwards a plain call under a gateway id with the server's own tool name, and answers with the client's id", () => {
    const t = setup();
    expect(t.call(7, "a__echo", { message: "hunter22 hi" })).toBe(true);
    expect(t.a.sent).toEqual([{ jsonrpc: "2.0", id: expect.stringMatching(/^mcpbox-fast-\d+$/), method: "tools/call", params: { name: "echo", arguments: { message: "hunter22 hi" } } }]);
    const upId = t.a.sent[0]!.id;
    const result = { content: [{ type: "text", text: "Echo: hi" }] };
    expect(t.lane.fromServer(t.asUp(t.a), { result, jsonrpc: "2.0", id: upId })).toBe(true);
    expect(t.written).toEqual([{ jsonrpc: "2.0", id: 7, result }]);
    expect(t.audit).toEqual([
      expect.objectContaining({ session: "s1", server: "a", method: "tools/call", tool: "echo", outcome: "ok", arguments: { message: "[redacted] hi" }, bytes: JSON.stringify(result).length }),
    ]);
  });

  it("declines what the SDK path must handle: refusals, approvals, unknown tools, stopped servers, other traffic", () => {
    const t = setup();
    expect(t.call(1, "a__secret-tool")).toBe(false); // hidden: refused and audited there
    expect(t.call(2, "a__read", { path: "/docs/../etc/passwd" })).toBe(false); // outside the mounts
    expect(t.call(3, "a__delete")).toBe(false); // needs a person's approval
    expect(t.call(4, "a__echo", {}, { progressToken: { not: "an id" } })).toBe(false); // invalid: the SDK answers it
    expect(t.call(5, "nope__echo")).toBe(false);
    t.b.running = false;
    expect(t.call(6, "b__echo")).toBe(false);
    expect(t.lane.fromClient(t.session, { jsonrpc: "2.0", id: 8, method: "tools/list" })).toBe(false);
    expect(t.lane.fromClient(t.session, [1, 2])).toBe(false);
    (t.session as { initialized: boolean }).initialized = false;
    expect(t.call(9, "a__echo")).toBe(false);
    expect([...t.a.sent, ...t.b.sent, ...t.written, ...t.audit]).toEqual([]);
  });

  it("carries progress under the gateway id and back under the client's token, in order, none after the answer", () => {
    const t = setup();
    t.call(5, "a__echo", { message: "x" }, { progressToken: "client-token", trace: "t1" });
    const upId = t.a.sent[0]!.id as string;
    expect(t.a.sent[0]!.params).toMatchObject({ _meta: { progressToken: upId, trace: "t1" } });
    const progress = (n: number) => t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: upId, progress: n, total: 2 } });
    expect(progress(1)).toBe(true);
    t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: upId, result: { content: [] } });
    expect(progress(2)).toBe(true); // late: dropped
    expect(t.written).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "client-token", progress: 1, total: 2 } },
      { jsonrpc: "2.0", id: 5, result: { content: [] } },
    ]);
    // the SDK Client's own progress (numeric tokens) is not the lane's
    expect(t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 3, progress: 1 } })).toBe(false);
  });

  it("lets no server answer, or report progress for, a call to another server", () => {
    const t = setup();
    t.call(1, "b__echo", {}, { progressToken: "tok" });
    const bId = t.b.sent[0]!.id;
    // server a guesses b's gateway id
    expect(t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: bId, progress: 1, message: "forged" } })).toBe(true);
    expect(t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: bId, result: { content: [{ type: "text", text: "forged" }] } })).toBe(true);
    expect(t.written).toEqual([]);
    t.lane.fromServer(t.asUp(t.b), { jsonrpc: "2.0", id: bId, result: { content: [{ type: "text", text: "real" }] } });
    expect(t.written).toEqual([{ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "real" }] } }]);
    expect(t.audit.map((r) => [r.server, r.outcome])).toEqual([["b", "ok"]]);
  });

  it("passes a server's log messages on at once, named after the server, before the answer that follows them", () => {
    const t = setup();
    t.call(1, "a__echo");
    const log = (params: object) => t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", method: "notifications/message", params });
    expect(log({ level: "info", logger: "db", data: "opened" })).toBe(true);
    expect(log({ level: "debug", data: "no logger" })).toBe(true);
    t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: t.a.sent[0]!.id, result: { content: [] } });
    expect(t.written).toEqual([
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", logger: "a/db", data: "opened" } },
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "debug", logger: "a", data: "no logger" } },
      { jsonrpc: "2.0", id: 1, result: { content: [] } },
    ]);
  });

  it("asks for no progress upstream when the client asked for none", () => {
    const t = setup();
    t.call(6, "a__echo");
    expect(t.a.sent[0]!.params).not.toHaveProperty("_meta");
    t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: t.a.sent[0]!.id, progress: 1 } });
    expect(t.written).toEqual([]);
  });

  it("leaves the SDK Client's own answers to the SDK", () => {
    const t = setup();
    expect(t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: 3, result: {} })).toBe(false);
    expect(t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", method: "notifications/tools/list_changed" })).toBe(false); // relists
    expect(t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: 4, method: "sampling/createMessage", params: {} })).toBe(false);
  });

  it("passes a server's error and a tool error on, audited as errors", () => {
    const t = setup();
    t.call("x", "a__echo");
    t.call("y", "b__read", { path: "/docs/a.txt" });
    const error = { code: -32602, message: "bad arguments" };
    t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: t.a.sent[0]!.id, error });
    t.lane.fromServer(t.asUp(t.b), { jsonrpc: "2.0", id: t.b.sent[0]!.id, result: { isError: true, content: [] } });
    expect(t.written).toEqual([
      { jsonrpc: "2.0", id: "x", error },
      { jsonrpc: "2.0", id: "y", result: { isError: true, content: [] } },
    ]);
    expect(t.audit.map((r) => [r.server, r.outcome, r.reason])).toEqual([["a", "error", "bad arguments"], ["b", "error", undefined]]);
  });

  it("ends a call at timeouts.callMs: an error to the client, a cancel to the server, a late answer dropped", () => {
    const t = setup();
    t.call(1, "a__echo");
    vi.advanceTimersByTime(499);
    expect(t.written).toEqual([]);
    vi.advanceTimersByTime(1);
    const upId = t.a.sent[0]!.id;
    expect(t.a.sent[1]).toEqual({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: upId, reason: "timed out" } });
    expect(t.written).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: ErrorCode.RequestTimeout, message: expect.stringContaining("server a: echo timed out after 500 ms (timeouts.callMs)") } },
    ]);
    expect(t.audit.map((r) => r.outcome)).toEqual(["timeout"]);
    expect(t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: upId, result: {} })).toBe(true);
    expect(t.written).toHaveLength(1);
  });

  it("ends each call callMs after its own start, whatever came and went before it (one timer per callMs)", () => {
    const t = setup();
    t.call(1, "a__echo");
    vi.advanceTimersByTime(100);
    t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: t.a.sent[0]!.id, result: {} }); // answered: its deadline goes
    vi.advanceTimersByTime(200);
    t.call(2, "a__echo"); // at 300: ends at 800, not at 500 (the first call's deadline)
    vi.advanceTimersByTime(100);
    t.call(3, "b__echo"); // at 400: ends at 900
    t.call(4, "a__echo"); // at 400, answered at 850: never times out
    const fourth = t.a.sent.at(-1)!.id;
    vi.advanceTimersByTime(399);
    expect(t.written.map((m) => m.id)).toEqual([1]);
    vi.advanceTimersByTime(1);
    expect(t.written.map((m) => [m.id, "error" in m])).toEqual([[1, false], [2, true]]);
    vi.advanceTimersByTime(50);
    t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: fourth, result: {} });
    vi.advanceTimersByTime(49);
    expect(t.written.map((m) => m.id)).toEqual([1, 2, 4]);
    vi.advanceTimersByTime(1);
    expect(t.written.map((m) => [m.id, "error" in m])).toEqual([[1, false], [2, true], [4, false], [3, true]]);
    expect(t.audit.map((r) => r.outcome)).toEqual(["ok", "timeout", "ok", "timeout"]);
    vi.advanceTimersByTime(10_000);
    expect(t.written).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0); // nothing armed once no call waits
  });

  it("passes the client's cancel on under the gateway id and answers nothing", () => {
    const t = setup();
    t.call(41, "a__echo");
    const cancel = (requestId: unknown) => t.lane.fromClient(t.session, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "user" } });
    expect(cancel(99)).toBe(false); // not the lane's: the SDK path may know it
    expect(cancel(41)).toBe(true);
    expect(t.a.sent[1]).toEqual({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: t.a.sent[0]!.id, reason: "user" } });
    expect(t.written).toEqual([]);
    expect(t.audit.map((r) => [r.outcome, r.reason])).toEqual([["cancelled", "user"]]);
    vi.advanceTimersByTime(1000);
    expect(t.written).toEqual([]);
  });

  it("fails the calls of a server whose connection closed at once, and only those", () => {
    const t = setup();
    t.call(1, "a__echo");
    t.call(2, "b__echo");
    t.lane.serverDown(t.asUp(t.a), new McpError(ErrorCode.InternalError, "server a is not available: it exited with code 137"));
    expect(t.written).toEqual([{ jsonrpc: "2.0", id: 1, error: { code: ErrorCode.InternalError, message: expect.stringContaining("exited with code 137") } }]);
    t.lane.fromServer(t.asUp(t.b), { jsonrpc: "2.0", id: t.b.sent[0]!.id, result: { content: [] } });
    expect(t.written.map((m) => m.id)).toEqual([1, 2]);
  });

  it("carries a call the SDK path took on the same route: its progress to that request, its answer as the promise's, audited once", async () => {
    const t = setup();
    const notes: unknown[] = [];
    const controller = new AbortController();
    const extra = { signal: controller.signal, sendNotification: async (n: unknown) => void notes.push(n) };
    const info = { method: "tools/call", tool: "echo", args: { message: "via sdk" } };
    const answer = t.lane.call(t.session, t.asUp(t.a), { name: "echo", arguments: { message: "via sdk" }, _meta: { progressToken: 9 } }, extra, info)!;
    const upId = t.a.sent[0]!.id as string;
    expect(t.a.sent[0]!.params).toMatchObject({ name: "echo", _meta: { progressToken: upId } });
    t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: upId, progress: 1 } });
    t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: upId, result: { content: [{ type: "text", text: "ok" }] } });
    await expect(answer).resolves.toEqual({ content: [{ type: "text", text: "ok" }] });
    expect(notes).toEqual([{ method: "notifications/progress", params: { progressToken: 9, progress: 1 } }]);
    expect(t.written).toEqual([]); // nothing raw to the client: the SDK answers it
    expect(t.audit.map((r) => [r.tool, r.outcome])).toEqual([["echo", "ok"]]);
    // a server error is the promise's rejection, in the server's words; a cancel tells the server and answers nobody
    const failing = t.lane.call(t.session, t.asUp(t.a), { name: "echo", arguments: {} }, extra, info)!;
    t.lane.fromServer(t.asUp(t.a), { jsonrpc: "2.0", id: t.a.sent[1]!.id, error: { code: -32602, message: "bad" } });
    await expect(failing).rejects.toMatchObject({ code: -32602, message: "bad" });
    const c2 = new AbortController();
    const cancelled = t.lane.call(t.session, t.asUp(t.a), { name: "echo", arguments: {} }, { ...extra, signal: c2.signal }, info)!;
    c2.abort();
    await expect(cancelled).rejects.toThrow(/cancelled/);
    expect(t.a.sent[3]).toMatchObject({ method: "notifications/cancelled", params: { requestId: t.a.sent[2]!.id } });
    expect(t.audit.map((r) => r.outcome)).toEqual(["ok", "error", "cancelled"]);
  });
});

describe("legacyToolResult (a 2025-11-25 client's projection of a tools/call result, SEP-2106)", () => {
  const ARRAY = { type: "array", items: { type: "number" } };
  const never = () => {
    throw new Error("the schema was looked up");
  };

  it("leaves a result without structuredContent alone, without looking the schema up", () => {
    expect(legacyToolResult({ content: [{ type: "text", text: "hi" }] }, never)).toBeUndefined();
  });

  it("leaves an object under an object schema, or under none, alone", () => {
    expect(legacyToolResult({ content: [], structuredContent: { x: 1 } }, () => ({ type: "object" }))).toBeUndefined();
    expect(legacyToolResult({ content: [], structuredContent: { x: 1 } }, () => undefined)).toBeUndefined();
  });

  it("wraps a value under a non-object schema root, an object one too (typeless roots are non-object, as in the SDK)", () => {
    expect(legacyToolResult({ content: [{ type: "text", text: "[1,2]" }], structuredContent: [1, 2] }, () => ARRAY)).toEqual({
      content: [{ type: "text", text: "[1,2]" }],
      structuredContent: { result: [1, 2] },
    });
    expect(legacyToolResult({ structuredContent: { a: 1 } }, () => ({ anyOf: [{ type: "object" }, { type: "null" }] }))).toEqual({ structuredContent: { result: { a: 1 } } });
  });

  it("wraps a non-object value without asking for the schema, adding a text block of its JSON when there is none", () => {
    expect(legacyToolResult({ content: [{ type: "image", data: "", mimeType: "image/png" }], structuredContent: null, isError: true }, never)).toEqual({
      content: [{ type: "image", data: "", mimeType: "image/png" }, { type: "text", text: "null" }],
      structuredContent: { result: null },
      isError: true,
    });
    expect(legacyToolResult({ structuredContent: "s" }, never)).toEqual({ content: [{ type: "text", text: '"s"' }], structuredContent: { result: "s" } });
  });
});
