/**
 * What a running gateway tells the outside world (the monitor socket, `mcpbox ps`): a typed event bus. The gateway
 * emits; publishers subscribe. Kept free of Docker and MCP types so the monitor and its tests need neither.
 */
import { EventEmitter } from "node:events";

export type ServerState = "starting" | "running" | "restarting" | "stopped" | "failed" | "idle";
export type CallOutcome = "ok" | "error" | "denied" | "timeout" | "cancelled";

export type GatewayEvent =
  | {
      type: "server";
      at: number;
      server: string;
      state: ServerState;
      containerId?: string | undefined;
      restarts: number;
      startedAt?: number | undefined;
      limits: { memoryBytes: number; cpus: number; pids: number };
      error?: string | undefined;
    }
  | {
      type: "call";
      at: number;
      server: string;
      method: string;
      tool?: string | undefined;
      durationMs: number;
      outcome: CallOutcome;
      bytes: number;
    }
  | { type: "stderr"; at: number; server: string; line: string }
  | {
      type: "guard";
      at: number;
      server: string;
      tool: string;
      decision: "denied" | "approved" | "refused";
      reason: string;
    }
  | {
      type: "stats";
      at: number;
      server: string;
      cpuPercent: number;
      memoryBytes: number;
      memoryLimitBytes: number;
      pids: number;
      oomKilled: boolean;
    }
  | {
      /** one egress connection of an allowlisted server; host and reason already redacted by the egress pool */
      type: "egress";
      at: number;
      server: string;
      host: string;
      port: number;
      outcome: "ok" | "denied";
      reason?: string | undefined;
      bytesUp: number;
      bytesDown: number;
      durationMs: number;
    };

export interface GatewayInfo {
  session: string;
  pid: number;
  configFile: string;
  startedAt: number;
  version: string;
}

export class GatewayEvents {
  readonly #emitter = new EventEmitter();

  constructor() {
    this.#emitter.setMaxListeners(100);
  }

  emit(event: GatewayEvent): void {
    this.#emitter.emit("event", event);
  }

  on(listener: (event: GatewayEvent) => void): () => void {
    this.#emitter.on("event", listener);
    return () => this.#emitter.off("event", listener);
  }
}
