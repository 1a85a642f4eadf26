/**
 * Boundary 5 (hrev review): what a server prints before its transport starts (an eager server before the first
 * client: with `serve --http`, for as long as no client comes) is held up to 1000 messages and 8 MiB, counted in the
 * bytes of the lines. It was held parsed: JSON of small objects (`[{},{},...]`, 3 bytes each in the line) is ~56 bytes
 * of heap per object, so the 8 MiB held ~160 MB per server. What is held must stay near the bytes it is counted by.
 * No engine needed: the transport reads a plain stream.
 */
import { PassThrough } from "node:stream";
import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { ContainerStdioTransport } from "../../src/docker/stdio-transport.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const tick = () => new Promise((r) => setImmediate(r));
const MiB = 1024 * 1024;
const held = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external; // external: array buffers and the long strings made from them
};

describe("a server's messages before its transport starts (boundary 5)", () => {
  it("are held in about the bytes they are counted by, and delivered as they were", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const t = new ContainerStdioTransport(stdin, stdout);
    const data = Array.from({ length: 350_000 }, () => ({}));
    const line = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data } }) + "\n";
    const before = held();
    for (let i = 0; i < 20; i++) {
      stdout.write(line);
      await tick();
    }
    const growth = held() - before;
    // at most 8 MiB of lines are kept (8 of these 1 MiB ones); before the fix ~160 MB
    expect(growth, `${(growth / MiB).toFixed(1)} MiB held`).toBeLessThan(2 * 8 * MiB);
    let delivered = 0;
    t.onmessage = (m) => {
      delivered++;
      expect((m as unknown as { params: { data: unknown[] } }).params.data.length).toBe(350_000);
    };
    await t.start();
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThanOrEqual(8);
    await t.close();
  });
});
