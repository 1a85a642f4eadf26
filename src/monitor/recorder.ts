/**
 * The gateway side's memory of what happened: the latest state of every server and ring buffers of recent calls,
 * stderr lines and guard decisions, so a monitor that connects late gets the current state first.
 */
import type { GatewayEvent } from "./events.ts";
import { oomKilledContainer, type CallEvent, type EgressEvent, type GuardEvent, type ServerSnapshot, type Snapshot } from "./protocol.ts";
import { Ring } from "./ring.ts";

export const RECENT_CALLS = 200;
export const RECENT_STDERR = 100;
export const RECENT_GUARDS = 50;
export const RECENT_DENIED = 20;
const MAX_SERVERS = 500;
const MAX_STDERR_LINE = 2000;

export class Recorder {
  readonly #servers = new Map<string, ServerSnapshot>();
  readonly #calls = new Ring<CallEvent>(RECENT_CALLS);
  readonly #stderr = new Map<string, Ring<string>>();
  readonly #guards = new Ring<GuardEvent>(RECENT_GUARDS);
  /** calls and failed calls per server since the gateway started */
  readonly #counts = new Map<string, { calls: number; errors: number }>();
  /** egress connections per server, and the last denied ones of all servers */
  readonly #egress = new Map<string, { connections: number; denied: number }>();
  readonly #denied = new Ring<EgressEvent>(RECENT_DENIED);
  /** OOM-killed containers per server */
  readonly #ooms = new Map<string, Set<string>>();

  /** Records an event; returns it as it should be published (stderr lines cut to a bounded length). */
  record(event: GatewayEvent): GatewayEvent {
    this.#countOom(event);
    switch (event.type) {
      case "server": {
        const { type: _t, at: _a, ...rest } = event;
        const before = this.#servers.get(event.server);
        const stats = before?.containerId === event.containerId ? before?.stats : undefined; // a new container starts from nothing
        this.#remember(event.server, { ...rest, stats });
        return event;
      }
      case "stats": {
        const current = this.#servers.get(event.server);
        const { type: _t, server: _s, ...stats } = event;
        if (current) current.stats = stats;
        return event;
      }
      case "call": {
        this.#calls.push(event);
        const counts = this.#counts.get(event.server) ?? { calls: 0, errors: 0 };
        counts.calls++;
        if (event.outcome !== "ok") counts.errors++;
        if (this.#counts.size < MAX_SERVERS || this.#counts.has(event.server)) this.#counts.set(event.server, counts);
        return event;
      }
      case "guard":
        this.#guards.push(event);
        return event;
      case "stderr": {
        const line = event.line.length > MAX_STDERR_LINE ? event.line.slice(0, MAX_STDERR_LINE) + "…" : event.line;
        this.#stderrOf(event.server)?.push(line);
        return line === event.line ? event : { ...event, line };
      }
      case "egress": {
        const counts = this.#egress.get(event.server) ?? { connections: 0, denied: 0 };
        counts.connections++;
        if (event.outcome === "denied") {
          counts.denied++;
          this.#denied.push(event);
        }
        if (this.#egress.size < MAX_SERVERS || this.#egress.has(event.server)) this.#egress.set(event.server, counts);
        return event;
      }
    }
  }

  /** Servers with a container worth polling for stats. */
  runningContainers(): { server: string; containerId: string }[] {
    return [...this.#servers.values()]
      .filter((s) => s.containerId && (s.state === "running" || s.state === "idle"))
      .map((s) => ({ server: s.server, containerId: s.containerId! }));
  }

  snapshot(at = Date.now()): Snapshot {
    const stderr: Record<string, string[]> = {};
    for (const [server, ring] of this.#stderr) stderr[server] = ring.toArray();
    return {
      at,
      servers: [...this.#servers.values()].map((s) => ({
        ...s,
        ...(this.#counts.get(s.server) ?? { calls: 0, errors: 0 }),
        oomKills: this.#ooms.get(s.server)?.size ?? 0,
        egress: this.#egress.get(s.server)?.connections ?? 0,
        egressDenied: this.#egress.get(s.server)?.denied ?? 0,
      })),
      calls: this.#calls.toArray(),
      stderr,
      guards: this.#guards.toArray(),
      denied: this.#denied.toArray(),
    };
  }

  #countOom(event: GatewayEvent): void {
    if (event.type !== "server" && event.type !== "stats") return;
    const id = oomKilledContainer(event, this.#servers.get(event.server)?.containerId);
    if (!id || !this.#servers.has(event.server)) return;
    const set = this.#ooms.get(event.server) ?? new Set<string>();
    if (set.size < 1000) set.add(id);
    this.#ooms.set(event.server, set);
  }

  #remember(server: string, snapshot: ServerSnapshot): void {
    if (!this.#servers.has(server) && this.#servers.size >= MAX_SERVERS) return;
    this.#servers.set(server, snapshot);
  }

  #stderrOf(server: string): Ring<string> | undefined {
    let ring = this.#stderr.get(server);
    if (!ring && this.#stderr.size < MAX_SERVERS) this.#stderr.set(server, (ring = new Ring(RECENT_STDERR)));
    return ring;
  }
}
