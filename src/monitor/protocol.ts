/**
 * The monitor protocol: newline-delimited JSON over the gateway's Unix socket, versioned by `v`. The gateway sends
 * `hello`, then a `snapshot` of its current state, then live events (a GatewayEvent with `v` added). The monitor may send
 * commands (`restart`); each gets a `reply`.
 */
import { StringDecoder } from "node:string_decoder";
import type { GatewayEvent, GatewayInfo } from "./events.ts";

export const PROTOCOL_VERSION = 1;
/** A line longer than this is a broken or hostile peer: the connection is dropped. */
export const MAX_LINE_BYTES = 1 << 20;

export type CallEvent = Extract<GatewayEvent, { type: "call" }>;
export type GuardEvent = Extract<GatewayEvent, { type: "guard" }>;
export type StatsEvent = Extract<GatewayEvent, { type: "stats" }>;
export type ServerEvent = Extract<GatewayEvent, { type: "server" }>;
export type StderrEvent = Extract<GatewayEvent, { type: "stderr" }>;
export type EgressEvent = Extract<GatewayEvent, { type: "egress" }>;

/** A server's last `server` event (without its type and time), plus what the snapshot adds. */
export interface ServerSnapshot extends Omit<ServerEvent, "type" | "at"> {
  stats?: Omit<StatsEvent, "type" | "server"> | undefined;
  /** calls since the gateway started, those whose outcome was not ok, and OOM kills (in snapshots only) */
  calls?: number;
  errors?: number;
  oomKills?: number;
  /** egress connections and the denied ones among them (in snapshots only) */
  egress?: number;
  egressDenied?: number;
}

/** The container an event says was OOM-killed, if any: from the stats poller, or the gateway's reason of a restart. */
export function oomKilledContainer(event: GatewayEvent, currentContainer: string | undefined): string | undefined {
  if (event.type === "stats") return event.oomKilled ? currentContainer : undefined;
  if (event.type === "server" && event.error && /ran out of memory/i.test(event.error)) return event.containerId;
  return undefined;
}

export interface Snapshot {
  at: number;
  servers: ServerSnapshot[];
  calls: CallEvent[];
  stderr: Record<string, string[]>;
  guards: GuardEvent[];
  /** the last denied egress connections (absent from gateways older than the egress monitor) */
  denied?: EgressEvent[];
}

export type GatewayMessage =
  | { v: 1; type: "hello"; gateway: GatewayInfo }
  | ({ v: 1; type: "snapshot" } & Snapshot)
  | ({ v: 1 } & GatewayEvent)
  | { v: 1; type: "reply"; id?: number | undefined; ok: boolean; error?: string | undefined };

export type MonitorCommand = { v?: 1; type: "restart"; server: string; id?: number } | { v?: 1; type: "ping"; id?: number };

export const encode = (message: object): string => JSON.stringify(message) + "\n";

/** Parses a command from a monitor; undefined when it is not one we know. */
export function parseCommand(line: string): MonitorCommand | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const m = value as Record<string, unknown>;
  const id = typeof m.id === "number" ? m.id : undefined;
  if (m.type === "restart" && typeof m.server === "string") return { type: "restart", server: m.server, ...(id === undefined ? {} : { id }) };
  if (m.type === "ping") return { type: "ping", ...(id === undefined ? {} : { id }) };
  return undefined;
}

/** Parses a message from a gateway; undefined when it is malformed or of another protocol version. */
export function parseMessage(line: string): GatewayMessage | undefined {
  try {
    const value = JSON.parse(line) as { v?: unknown; type?: unknown };
    if (value?.v !== PROTOCOL_VERSION || typeof value.type !== "string") return undefined;
    return value as GatewayMessage;
  } catch {
    return undefined;
  }
}

/** Splits a byte stream into lines; calls onOverflow when one line grows past the cap. */
export function lineSplitter(onLine: (line: string) => void, onOverflow: () => void): (chunk: Buffer | string) => void {
  let pending = "";
  const decoder = new StringDecoder("utf8"); // a character split across two reads stays whole
  return (chunk) => {
    pending += typeof chunk === "string" ? chunk : decoder.write(chunk);
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (line) onLine(line);
    }
    if (pending.length > MAX_LINE_BYTES) {
      pending = "";
      onOverflow();
    }
  };
}
