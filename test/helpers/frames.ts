/** Engine attach frames and a heap measure, for the tests of what tiny pieces of a stream hold (boundaries 5, 14). */
import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** `count` frames of one byte each on `stream` (1 stdout, 2 stderr), as one read of the attach connection. */
export function oneByteFrames(count: number, stream: number, byte: number): Buffer {
  const out = Buffer.alloc(count * 9);
  for (let i = 0; i < count; i++) {
    out[i * 9] = stream;
    out.writeUInt32BE(1, i * 9 + 4);
    out[i * 9 + 8] = byte;
  }
  return out;
}

/** Heap and array buffers in use after a full collection. */
export function heldBytes(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
