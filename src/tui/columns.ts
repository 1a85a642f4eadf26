/**
 * The server table's columns, sized so a row fits 80 columns: marker 2 + cells + one space between them = 79.
 * Each cell is plain fixed-width text; the component only colours it.
 */
import type { ServerRow } from "../monitor/store.ts";
import { bar, bytes, duration, fit, percent, uptime } from "../text/format.ts";

export interface Column {
  title: string;
  width: number;
  align: "left" | "right";
  cell(row: ServerRow, now: number): string;
}

const STATE_LABEL: Record<ServerRow["state"], string> = {
  starting: "start", running: "running", restarting: "restart", stopped: "stopped", failed: "failed", idle: "idle", gone: "gone",
};

const memory = (r: ServerRow) => `${bar(r.memoryBytes, r.memoryLimitBytes || r.limits.memoryBytes, 5)} ${fit(bytes(r.memoryBytes), 4, "right")}`;

export const COLUMNS: Column[] = [
  { title: "SERVER", width: 10, align: "left", cell: (r) => r.server },
  { title: "STATE", width: 7, align: "left", cell: (r) => STATE_LABEL[r.state] },
  { title: "UP", width: 6, align: "right", cell: (r, now) => (r.state === "running" || r.state === "idle" ? uptime(r.startedAt, now) : "-") },
  { title: "RST", width: 3, align: "right", cell: (r) => String(r.restarts) },
  { title: "OOM", width: 3, align: "right", cell: (r) => String(r.oomKills) },
  { title: "CPU%", width: 5, align: "right", cell: (r) => percent(r.cpuPercent) },
  { title: "MEMORY", width: 10, align: "left", cell: (r) => (r.memoryBytes === undefined ? "-" : memory(r)) },
  { title: "PIDS", width: 4, align: "right", cell: (r) => (r.pids === undefined ? "-" : String(r.pids)) },
  { title: "CALLS", width: 5, align: "right", cell: (r) => String(r.calls) },
  { title: "P50", width: 5, align: "right", cell: (r) => duration(r.p50) },
  { title: "P95", width: 5, align: "right", cell: (r) => duration(r.p95) },
  { title: "ERR", width: 3, align: "right", cell: (r) => String(r.errors) },
];

export const headerCells = (): string[] => COLUMNS.map((c) => fit(c.title, c.width, c.align));
export const rowCells = (row: ServerRow, now: number): string[] => COLUMNS.map((c) => fit(c.cell(row, now), c.width, c.align));
