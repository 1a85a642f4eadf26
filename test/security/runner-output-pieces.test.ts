/**
 * Boundary 14 / 5 (hrev review): the code runner keeps at most maxOutputBytes (default 1 MiB) of a run's stdout and
 * of its stderr, but it kept each engine frame's part as a Buffer of its own (~100 bytes of heap whatever its length).
 * Code that prints a byte at a time, a few microseconds apart, gets a frame per byte or two through the engine (Docker
 * 20.10, measured for test/security/line-pieces.test.ts), so a run's "1 MiB" of output held ~200 MB per stream, and
 * pool.maxConcurrent runs at once several times that. What a run's output holds must stay near its cap however finely
 * the program cuts its writes. No engine needed: the frames are fed to the collector the runner uses.
 */
import { describe, expect, it } from "vitest";
import { heldBytes, oneByteFrames } from "../helpers/frames.ts";
import { OutputCollector } from "../../src/runner/output.ts";

const MiB = 1024 * 1024;


const held = heldBytes;

describe("a run's output in one-byte frames (boundary 14)", () => {
  it("holds about its cap, not a Buffer per frame", () => {
    const CAP = MiB;
    const before = held();
    const output = new OutputCollector(CAP);
    const PER_READ = 4096;
    for (let sent = 0; sent < CAP; sent += PER_READ) {
      output.push(oneByteFrames(PER_READ, 1, 0x61));
      output.push(oneByteFrames(PER_READ, 2, 0x62));
    }
    const growth = held() - before;
    // both streams at their cap: 2 MiB kept (plus room for the collector's own blocks); before the fix ~200 MB
    expect(growth, `${(growth / MiB).toFixed(1)} MiB held for 2 x ${CAP / MiB} MiB of output`).toBeLessThan(4 * CAP + 4 * MiB);
    expect(output.stdout.text).toBe("a".repeat(CAP));
    expect(output.stderr.text).toBe("b".repeat(CAP));
    expect(output.stdout.truncated).toBe(false);
  });
});
