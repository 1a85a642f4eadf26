/**
 * Boundary 5 (memory stays bounded whatever a server does), before the server's transport listens: demuxAttached's
 * StdoutFeed holds what the container printed until the transport adds its listener. Since hcold's change (the
 * transport's code imported after the engine started the container, tens of ms of loading), a server that prints
 * at full speed from its first instruction fills that hold at the socket's speed. The hold must be bounded: past a cap
 * the connection is no longer read (the engine, then the container, wait), and nothing is lost once the transport
 * listens. hrev, issue 15 review. (_attach.ts HOLD_CAP_BYTES)
 */
import { Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import { demuxAttached } from "../../src/docker/_attach.ts";

const frame = (stream: 1 | 2, payload: Buffer) => {
  const h = Buffer.alloc(8);
  h[0] = stream;
  h.writeUInt32BE(payload.length, 4);
  return Buffer.concat([h, payload]);
};

describe("a container's stdout before its transport listens (boundary 5)", () => {
  it("is held up to a cap, then the connection waits; all of it reaches the transport in order", async () => {
    const socket = new Duplex({ read() {}, write: (_c, _e, done) => done() });
    const { stdout } = demuxAttached(socket);
    const MiB = 1024 * 1024;
    const line = Buffer.from(`${"x".repeat(MiB - 1)}\n`);
    for (let i = 0; i < 256; i++) {
      socket.push(frame(1, line));
      await new Promise((r) => setImmediate(r));
    }
    // 256 MiB printed with nobody listening: most of it must still be in the connection, not in the gateway's hold
    expect(socket.readableLength).toBeGreaterThan(128 * MiB);
    let got = 0;
    stdout.on("data", (b: Buffer) => (got += b.length));
    for (let i = 0; i < 1000 && got < 256 * MiB; i++) await new Promise((r) => setImmediate(r));
    expect(got).toBe(256 * MiB);
  });
});
