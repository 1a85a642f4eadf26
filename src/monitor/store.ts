/**
 * The monitor's state, kept outside React: protocol messages from every gateway are folded into one immutable
 * MonitorState, and listeners hear about it only when something changed (a stats tick with the same figures is not a
 * change). The Ink dashboard subscribes; the plain summary reads it once.
 */
import { EventEmitter } from "node:events";
import type { GatewayInfo } from "./events.ts";
import type { CallEvent, EgressEvent, GatewayMessage, GuardEvent, ServerSnapshot, StatsEvent } from "./protocol.ts";
import { GatewayFold, type ServerRow } from "./fold.ts";

export type { ServerRow } from "./fold.ts";

export interface GatewayView {
  session: string;
  info: GatewayInfo | undefined;
  status: "connecting" | "live" | "gone";
  servers: ServerRow[];
}

export interface MonitorState {
  gateways: GatewayView[];
  /** recent calls of every gateway, oldest first */
  calls: (CallEvent & { session: string })[];
  guards: (GuardEvent & { session: string })[];
  /** the last denied egress connections of every gateway, oldest first */
  denied: (EgressEvent & { session: string })[];
  /** recent stderr lines by row key (see rowKey) */
  stderr: Record<string, string[]>;
  /** row key of the selected server */
  selected: string | undefined;
  filter: string;
  editingFilter: boolean;
  notice: string | undefined;
}

export const rowKey = (row: { session: string; server: string }) => `${row.session}/${row.server}`;
const RECENT = 100;

export class MonitorStore {
  readonly #emitter = new EventEmitter();
  readonly #gateways = new Map<string, GatewayFold>();
  /** until the user moves the selection, it stays on the first row */
  #chosen = false;
  #state: MonitorState = { gateways: [], calls: [], guards: [], denied: [], stderr: {}, selected: undefined, filter: "", editingFilter: false, notice: undefined };

  /** protocol messages changed the folds: the state is rebuilt and announced once for a burst of them */
  #dirty = false;
  #scheduled = false;
  #unannounced = false;

  /** Always current (a pending burst is folded in now); listeners still hear about it once, after the burst. */
  getState = (): MonitorState => {
    if (this.#dirty) this.#rebuild(false);
    return this.#state;
  };

  subscribe = (listener: (state: MonitorState) => void): (() => void) => {
    this.#emitter.on("change", listener);
    return () => this.#emitter.off("change", listener);
  };

  /** A gateway was found; its rows appear when its snapshot arrives. */
  add(session: string, info?: GatewayInfo): void {
    if (this.#gateways.has(session)) return;
    this.#gateways.set(session, new GatewayFold(session, info));
    this.#commit();
  }

  apply(session: string, message: GatewayMessage): void {
    let fold = this.#gateways.get(session);
    if (!fold) this.#gateways.set(session, (fold = new GatewayFold(session, undefined)));
    if (fold.apply(message)) this.#later();
  }

  /** One socket read holds many messages: rebuild and announce after them, not once per message. */
  #later(): void {
    this.#dirty = true;
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (this.#dirty) this.#rebuild(true);
      else if (this.#unannounced) this.#announce();
    });
  }

  /** The gateway's socket closed: its rows stay, marked gone. */
  gone(session: string): void {
    const fold = this.#gateways.get(session);
    if (fold && fold.status !== "gone") {
      fold.status = "gone";
      this.#commit();
    }
  }

  /** Forgets a gateway (one that has been gone for a while). */
  remove(session: string): void {
    if (this.#gateways.delete(session)) this.#commit();
  }

  moveSelection(delta: number): void {
    const rows = visibleRows(this.getState());
    if (rows.length === 0) return;
    const at = rows.findIndex((r) => rowKey(r) === this.#state.selected);
    const next = rows[Math.min(rows.length - 1, Math.max(0, at < 0 ? 0 : at + delta))]!;
    this.#chosen = true;
    this.#set({ selected: rowKey(next) });
  }

  startFilter(): void {
    this.#set({ editingFilter: true });
  }

  typeFilter(text: string): void {
    this.#set({ filter: this.#state.filter + text });
  }

  eraseFilter(): void {
    this.#set({ filter: this.#state.filter.slice(0, -1) });
  }

  /** Enter keeps the filter, Escape clears it. */
  endFilter(keep: boolean): void {
    this.#set({ editingFilter: false, filter: keep ? this.#state.filter : "" });
  }

  notify(notice: string | undefined): void {
    this.#set({ notice });
  }

  #set(patch: Partial<MonitorState>): void {
    if (this.#dirty) this.#rebuild(false);
    const changed = (Object.keys(patch) as (keyof MonitorState)[]).some((k) => patch[k] !== this.#state[k]);
    if (!changed) return;
    this.#publish({ ...this.#state, ...patch });
  }

  #commit(): void {
    this.#rebuild(true);
  }

  #rebuild(announce: boolean): void {
    this.#dirty = false;
    const folds = [...this.#gateways.values()];
    const stderr: Record<string, string[]> = {};
    for (const fold of folds) for (const [server, lines] of fold.stderr) stderr[rowKey({ session: fold.session, server })] = lines.toArray();
    this.#publish({
      ...this.#state,
      gateways: folds.map((f) => ({ session: f.session, info: f.info, status: f.status, servers: f.rows() })),
      calls: newest(folds.flatMap((f) => f.calls.toArray().map((c) => ({ ...c, session: f.session })))),
      guards: newest(folds.flatMap((f) => f.guards.toArray().map((g) => ({ ...g, session: f.session })))),
      denied: newest(folds.flatMap((f) => f.denied.toArray().map((d) => ({ ...d, session: f.session })))),
      stderr,
    }, announce);
  }

  #publish(next: MonitorState, announce = true): void {
    const rows = visibleRows(next);
    const keep = this.#chosen && rows.some((r) => rowKey(r) === next.selected);
    const first = rows[0] ? rowKey(rows[0]) : undefined;
    if (!keep && next.selected !== first && (first !== undefined || next.filter === "")) next = { ...next, selected: first };
    this.#state = next;
    this.#unannounced = true;
    if (announce) this.#announce();
  }

  #announce(): void {
    this.#unannounced = false;
    this.#emitter.emit("change", this.#state);
  }
}

const newest = <T extends { at: number }>(items: T[]) => items.sort((a, b) => a.at - b.at).slice(-RECENT);

/** The rows the filter lets through, in display order. */
export function visibleRows(state: MonitorState): ServerRow[] {
  const needle = state.filter.toLowerCase();
  return state.gateways
    .flatMap((g) => g.servers)
    .filter((r) => !needle || r.server.toLowerCase().includes(needle) || r.session.toLowerCase().includes(needle));
}

export function selectedRow(state: MonitorState): ServerRow | undefined {
  return visibleRows(state).find((r) => rowKey(r) === state.selected);
}

export type { ServerSnapshot, StatsEvent };
