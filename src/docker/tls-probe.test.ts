import { expect, it } from "vitest";
import { demux, parseOutcome } from "./tls-probe.ts";

const frame = (stream: number, text: string) => {
  const body = Buffer.from(text);
  const head = Buffer.alloc(8);
  head[0] = stream;
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
};

it("reads the engine's log frames and the probe's last JSON line", () => {
  const logs = Buffer.concat([frame(2, "warning: x\n"), frame(1, '{"ok":false,"code":"SELF_SIGNED_CERT_IN_CHAIN","message":"self-signed"}\n')]);
  expect(parseOutcome(demux(logs))).toEqual({ ok: false, code: "SELF_SIGNED_CERT_IN_CHAIN", message: "self-signed" });
  expect(parseOutcome('{"ok":true,"status":200}\n')).toEqual({ ok: true, status: 200 });
  expect(parseOutcome("node: not found")).toMatchObject({ ok: false, code: "NO_ANSWER" });
});
