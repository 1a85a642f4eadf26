/**
 * Boundary 5, a line that arrives in tiny pieces: a server's stdout reaches the gateway in the engine's frames, one
 * per read of the container's pipe, and each frame's payload goes on as a view of the chunk it came in
 * (stream-frames.ts). A server that writes one byte at a time, a few microseconds apart, gets a frame per byte or two
 * (measured here through Docker 20.10: 20 µs apart, 2.05 bytes per frame; 100 µs, 1.16). The line splitter kept each
 * piece of an unfinished line as its own Buffer view: ~100 bytes of heap per piece, so the 16 MiB cap of a message
 * held ~1.8 GB (1 MiB of one-byte frames: +115 MB heap, +220 MB RSS, measured) and a few such servers, or one on a
 * machine whose heap limit is 2 GB, stop the gateway. What an unfinished line holds must stay within a small multiple
 * of its bytes, however it is cut. No engine needed: the frames are fed to the attach demux and transport the gateway
 * uses (hrev review).
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { heldBytes, oneByteFrames } from "../helpers/frames.ts";
import { demuxAttached } from "../../src/docker/_attach.ts";
import { ContainerStdioTransport } from "../../src/docker/stdio-transport.ts";

const tick = () => new Promise((r) => setImmediate(r));
const MiB = 1024 * 1024;


const held = heldBytes;

describe("an unfinished line of a server's stdout in one-byte frames (boundary 5)", () => {
  it("holds about its bytes, not a Buffer per frame", async () => {
    const connection = new PassThrough();
    const { stdout } = demuxAttached(connection);
    const t = new ContainerStdioTransport(new PassThrough(), stdout);
    const messages: unknown[] = [];
    t.onmessage = (m) => void messages.push(m);
    await t.start();
    await tick();
    const LINE = 2 * MiB;
    const PER_READ = 4096;
    const before = held();
    connection.write(Buffer.from(oneByteFrames(1, 1, 0x7b))); // "{"
    for (let sent = 1; sent < LINE; sent += PER_READ) {
      connection.write(oneByteFrames(Math.min(PER_READ, LINE - sent), 1, 0x20)); // spaces: still one JSON value to come
      if ((sent & 0xffff) < PER_READ) await tick();
    }
    await tick();
    const growth = held() - before;
    // the line's 2 MiB, once (plus room for the splitter's own buffers); before the fix: ~250 MB
    expect(growth, `${(growth / MiB).toFixed(1)} MiB held for a ${LINE / MiB} MiB unfinished line`).toBeLessThan(4 * LINE + 4 * MiB);

    // and the line still reads as one message once it ends
    const rest = Buffer.from('"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n');
    const frame = Buffer.alloc(8);
    frame[0] = 1;
    frame.writeUInt32BE(rest.length, 4);
    connection.write(Buffer.concat([frame, rest]));
    await tick();
    expect(messages).toEqual([{ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } }]);
    await t.close();
  });
});
