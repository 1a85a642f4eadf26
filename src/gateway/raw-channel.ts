/**
 * A JSON-RPC transport that lets the gateway's fast lane see each parsed message before it is validated and handed
 * to the SDK, and write lines it serialised itself. Both stdio transports (the client's and a container's) are one.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

export interface RawChannel extends Transport {
  /** sees every parsed JSON message first; returning true takes it (the SDK never sees it) */
  intercept: ((message: unknown) => boolean) | undefined;
  /** writes one already serialised JSON-RPC message (no newline); false when the channel is closed. droppable: a
   * notification that may be dropped while the peer is not reading */
  sendLine(json: string, droppable?: boolean): boolean;
}

export function isRawChannel(t: Transport | undefined): t is RawChannel {
  return t !== undefined && "intercept" in t && typeof (t as Partial<RawChannel>).sendLine === "function";
}
