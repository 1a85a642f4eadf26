/** One gateway's part of the monitor state: folds its protocol messages; apply() says whether anything changed. */
import type { GatewayInfo, ServerState } from "./events.ts";
import { oomKilledContainer, type CallEvent, type EgressEvent, type GatewayMessage, type GuardEvent, type ServerSnapshot } from "./protocol.ts";
import { Latency } from "./latency.ts";
import { Ring } from "./ring.ts";

export interface ServerRow {
  session: string;
  server: string;
  /** `gone` when the gateway itself went away */
  state: ServerState | "gone";
  containerId: string | undefined;
  restarts: number;
  startedAt: number | undefined;
  limits: ServerSnapshot["limits"];
  error: string | undefined;
  cpuPercent: number | undefined;
  memoryBytes: number | undefined;
  memoryLimitBytes: number | undefined;
  pids: number | undefined;
  oomKills: number;
  calls: number;
  errors: number;
  /** egress connections, and the denied ones among them */
  egress: number;
  egressDenied: number;
  p50: number | undefined;
  p95: number | undefined;
}

type Mutable = Omit<ServerRow, "p50" | "p95"> & { latency: Latency; oomContainers: Set<string> };

export class GatewayFold {
  readonly session: string;
  info: GatewayInfo | undefined;
  status: "connecting" | "live" | "gone" = "connecting";
  readonly calls = new Ring<CallEvent>(100);
  readonly guards = new Ring<GuardEvent>(50);
  readonly denied = new Ring<EgressEvent>(20);
  readonly stderr = new Map<string, Ring<string>>();
  readonly #servers = new Map<string, Mutable>();

  constructor(session: string, info: GatewayInfo | undefined) {
    this.session = session;
    this.info = info;
  }

  rows(): ServerRow[] {
    return [...this.#servers.values()]
      .sort((a, b) => a.server.localeCompare(b.server))
      .map(({ latency, oomContainers: _o, ...row }) => ({
        ...row,
        state: this.status === "gone" ? "gone" : row.state,
        p50: latency.p50,
        p95: latency.p95,
      }));
  }

  apply(m: GatewayMessage): boolean {
    switch (m.type) {
      case "hello":
        this.info = m.gateway;
        this.status = "live";
        return true;
      case "snapshot":
        for (const s of m.servers) {
          const row = Object.assign(this.#server(s.server), snapshotFields(s));
          if (s.stats?.oomKilled && s.containerId) row.oomContainers.add(s.containerId);
        }
        for (const c of m.calls) this.#call(c, false);
        for (const g of m.guards) this.guards.push(g);
        for (const d of m.denied ?? []) this.denied.push(d);
        for (const [server, lines] of Object.entries(m.stderr)) for (const l of lines) this.#stderr(server).push(l);
        return true;
      case "server": {
        const row = this.#server(m.server);
        if (row.containerId !== m.containerId) Object.assign(row, { cpuPercent: undefined, memoryBytes: undefined, pids: undefined });
        countOom(row, oomKilledContainer(m, row.containerId));
        // the last failure stays visible while the server retries
        const error = m.error ?? (m.state === "running" || m.state === "idle" ? undefined : row.error);
        Object.assign(row, { state: m.state, containerId: m.containerId, restarts: m.restarts, startedAt: m.startedAt, limits: m.limits, error });
        return true;
      }
      case "stats":
        return this.#stats(m);
      case "call":
        this.#call(m, true);
        return true;
      case "guard":
        this.guards.push(m);
        return true;
      case "stderr":
        this.#stderr(m.server).push(m.line);
        return true;
      case "egress": {
        const row = this.#server(m.server);
        row.egress++;
        if (m.outcome === "denied") {
          row.egressDenied++;
          this.denied.push(m);
        }
        return true;
      }
      default:
        return false; // replies without an id
    }
  }

  #stats(m: Extract<GatewayMessage, { type: "stats" }>): boolean {
    const row = this.#server(m.server);
    const oomBefore = row.oomKills;
    countOom(row, oomKilledContainer(m, row.containerId));
    const next = { cpuPercent: round(m.cpuPercent), memoryBytes: m.memoryBytes, memoryLimitBytes: m.memoryLimitBytes, pids: m.pids };
    const changed = row.oomKills !== oomBefore || (Object.keys(next) as (keyof typeof next)[]).some((k) => row[k] !== next[k]);
    Object.assign(row, next);
    return changed;
  }

  #call(c: CallEvent, count: boolean): void {
    this.calls.push(c);
    const row = this.#server(c.server);
    row.latency.add(c.durationMs);
    if (!count) return; // snapshot calls are already in the snapshot's counts
    row.calls++;
    if (c.outcome !== "ok") row.errors++;
  }

  #server(server: string): Mutable {
    let row = this.#servers.get(server);
    if (!row) {
      row = {
        session: this.session, server, state: "starting", containerId: undefined, restarts: 0, startedAt: undefined,
        limits: { memoryBytes: 0, cpus: 0, pids: 0 }, error: undefined, cpuPercent: undefined, memoryBytes: undefined,
        memoryLimitBytes: undefined, pids: undefined, oomKills: 0, calls: 0, errors: 0, egress: 0, egressDenied: 0, latency: new Latency(), oomContainers: new Set(),
      };
      this.#servers.set(server, row);
    }
    return row;
  }

  #stderr(server: string): Ring<string> {
    let ring = this.stderr.get(server);
    if (!ring) this.stderr.set(server, (ring = new Ring(100)));
    return ring;
  }
}

function snapshotFields(s: ServerSnapshot): Partial<Mutable> {
  return {
    state: s.state, containerId: s.containerId, restarts: s.restarts, startedAt: s.startedAt, limits: s.limits, error: s.error,
    calls: s.calls ?? 0, errors: s.errors ?? 0, oomKills: s.oomKills ?? 0, egress: s.egress ?? 0, egressDenied: s.egressDenied ?? 0,
    ...(s.stats ? { cpuPercent: round(s.stats.cpuPercent), memoryBytes: s.stats.memoryBytes, memoryLimitBytes: s.stats.memoryLimitBytes, pids: s.stats.pids } : {}),
  };
}

/** Counts an OOM kill once per container. */
function countOom(row: Mutable, containerId: string | undefined): void {
  if (!containerId || row.oomContainers.has(containerId)) return;
  row.oomContainers.add(containerId);
  row.oomKills++;
}

/** One decimal: a change below what the screen shows is not a change. */
const round = (n: number) => Math.round(n * 10) / 10;
