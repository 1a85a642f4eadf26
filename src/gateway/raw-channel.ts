/**
 * A JSON-RPC channel that lets the gateway's fast lane see each parsed message before it is validated and handed
 * to the SDK, and write lines it serialised itself. Both stdio transports (the client's and a container's) are one,
 * whichever SDK they serve (the client's: v1 Server; a container's: the v2 Client).
 */
export interface RawChannel {
  /** sees every parsed JSON message first; returning true takes it (the SDK never sees it) */
  intercept: ((message: unknown) => boolean) | undefined;
  /** writes one already serialised JSON-RPC message (no newline); false when the channel is closed. droppable: a
   * notification that may be dropped while the peer is not reading */
  sendLine(json: string, droppable?: boolean): boolean;
}

export function isRawChannel<T extends object>(t: T | undefined): t is T & RawChannel {
  return t !== undefined && "intercept" in t && typeof (t as Partial<RawChannel>).sendLine === "function";
}
