/** The monitor's one-shot plain text, for a stdout that is not a terminal: the same columns as the dashboard. */
import { headerCells, rowCells } from "../tui/columns.ts";
import { printable, uptime } from "../tui/format.ts";
import type { MonitorState } from "./store.ts";

export function plainSummary(state: MonitorState, now = Date.now()): string {
  const lines: string[] = [];
  for (const g of state.gateways) {
    const status = g.status === "gone" ? "gone" : `up ${uptime(g.info?.startedAt, now)}`;
    lines.push(printable(`gateway ${g.session} · pid ${g.info?.pid ?? "?"} · ${status} · ${g.info?.configFile ?? ""}`));
    lines.push(headerCells().join(" ").trimEnd());
    for (const row of g.servers) lines.push(rowCells(row, now).join(" ").trimEnd());
    for (const row of g.servers) if (row.error) lines.push(`${row.server}: ${printable(row.error)}`);
    if (g.servers.length === 0) lines.push("(no servers yet)");
    lines.push("");
  }
  const guards = state.guards.slice(-5);
  if (guards.length > 0) {
    lines.push("recent guard decisions:");
    for (const d of guards) lines.push(`  ${printable(`${d.server} ${d.tool}: ${d.decision} (${d.reason})`)}`);
  }
  return lines.join("\n").trimEnd() + "\n";
}

