/**
 * Boundary 5, before the client has come: a server's container starts with the gateway (eager), but its transport is
 * started only once the client's initialize is there (serve --http: whenever the first client connects). What the
 * server prints meanwhile is parsed and held for the start; that must be bounded in bytes, not only in messages
 * (1000 messages of up to 16 MiB each is 16 GiB). No engine needed: the transport reads a plain stream.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ContainerStdioTransport, DEFAULT_MAX_MESSAGE_BYTES } from "../../src/docker/stdio-transport.ts";

const tick = () => new Promise((r) => setImmediate(r));

describe("a server's output before its transport starts (boundary 5)", () => {
  it("holds a bounded number of bytes of it, however much it prints", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const t = new ContainerStdioTransport(stdin, stdout);
    let held = 0;
    t.onmessage = (m) => (held += JSON.stringify(m).length);
    const MiB = 1024 * 1024;
    const line = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(MiB) } }) + "\n";
    for (let i = 0; i < 96; i++) {
      stdout.write(line);
      await tick();
    }
    await t.start(); // delivers what was held
    // 96 MiB printed: what was kept for the start stays within two messages' limit (the client queue's cap is 8 MiB)
    expect(held).toBeLessThanOrEqual(2 * DEFAULT_MAX_MESSAGE_BYTES);
    await t.close();
  });
});
