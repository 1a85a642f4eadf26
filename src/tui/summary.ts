/** The monitor's one-shot plain text, for a stdout that is not a terminal: the same columns as the dashboard. */
import { headerCells, rowCells } from "./columns.ts";
import { printable, uptime } from "../text/format.ts";
import type { MonitorState } from "../monitor/store.ts";

export function plainSummary(state: MonitorState, now = Date.now()): string {
  const lines: string[] = [];
  for (const g of state.gateways) {
    const status = g.status === "gone" ? "gone" : `up ${uptime(g.info?.startedAt, now)}`;
    lines.push(printable(`gateway ${g.session} · pid ${g.info?.pid ?? "?"} · ${status} · ${g.info?.configFile ?? ""}`));
    lines.push(headerCells().join(" ").trimEnd());
    for (const row of g.servers) lines.push(rowCells(row, now).join(" ").trimEnd());
    for (const row of g.servers) if (row.error) lines.push(`${row.server}: ${printable(row.error)}`);
    for (const row of g.servers) if (row.egress > 0) lines.push(printable(`${row.server}: egress ${row.egress} (${row.egressDenied} denied)`));
    if (g.servers.length === 0) lines.push("(no servers yet)");
    lines.push("");
  }
  const guards = state.guards.slice(-5);
  if (guards.length > 0) {
    lines.push("recent guard decisions:");
    for (const d of guards) lines.push(`  ${printable(`${d.server} ${d.tool}: ${d.decision} (${d.reason})`)}`);
  }
  const denied = state.denied.slice(-5);
  if (denied.length > 0) {
    lines.push("recent denied egress:");
    for (const d of denied) lines.push(`  ${printable(`${d.server} ${d.host}:${d.port}${d.reason ? ` (${d.reason})` : ""}`)}`);
  }
  return lines.join("\n").trimEnd() + "\n";
}

