/**
 * The lower half: recent calls, guard decisions and denied egress connections (newest first), and the selected
 * server's stderr (newest last).
 */
import { Box, Text } from "ink";
import type { MonitorState, ServerRow } from "../monitor/store.ts";
import { rowKey, visibleRows } from "../monitor/store.ts";
import { bytes, clock, duration, fit, printable } from "../text/format.ts";
import type { Theme } from "./theme.ts";

type Activity = MonitorState["calls"][number] | MonitorState["guards"][number] | MonitorState["denied"][number];

export function CallsPane({ state, height, width, theme }: { state: MonitorState; height: number; width: number; theme: Theme }) {
  const shown = new Set(visibleRows(state).map(rowKey));
  const items: Activity[] = [...state.calls, ...state.guards, ...state.denied]
    .filter((a) => shown.has(rowKey(a)))
    .sort((a, b) => b.at - a.at)
    .slice(0, height);
  return (
    <Box flexDirection="column" height={height + 1}>
      <Title text="recent calls" width={width} />
      {items.map((item, i) => (
        <ActivityLine key={i} item={item} width={width} theme={theme} />
      ))}
    </Box>
  );
}

function ActivityLine({ item, width, theme }: { item: Activity; width: number; theme: Theme }) {
  const head = `${clock(item.at)} ${fit(item.server, 10)} `;
  if (item.type === "guard") {
    const colour = item.decision === "approved" ? theme.colour("green") : theme.colour("yellow");
    return (
      <Text wrap="truncate-end">
        {head}
        {fit(item.tool, 24)} <Text color={colour}>{item.decision}</Text>
        {fit(`: ${printable(item.reason)}`, Math.max(0, width - head.length - 26 - item.decision.length))}
      </Text>
    );
  }
  if (item.type === "egress") {
    // the host is the server's choice: fit() makes it printable and cuts it
    const target = fit(`egress ${item.host}:${item.port}`, 30);
    return (
      <Text wrap="truncate-end">
        {head}
        {target} <Text color={theme.colour("yellow")}>denied</Text>
        {item.reason ? fit(`: ${item.reason}`, Math.max(0, width - head.length - 31 - 6 - 1)) : ""}
      </Text>
    );
  }
  const name = item.tool ?? item.method;
  return (
    <Text wrap="truncate-end">
      {head}
      {fit(name, 40)} {fit(duration(item.durationMs), 6, "right")} <Text color={theme.outcome(item.outcome)}>{item.outcome}</Text>
    </Text>
  );
}

export function StderrPane(props: { state: MonitorState; row: ServerRow | undefined; height: number; width: number; theme: Theme }) {
  const { state, row, height, width, theme } = props;
  const error = row?.error ? 1 : 0;
  const lines = row ? (state.stderr[rowKey(row)] ?? []).slice(-(height - error)) : [];
  return (
    <Box flexDirection="column" height={height + 1}>
      <Title text={row ? `${serverSummary(row)} · stderr` : "stderr"} width={width} />
      {row?.error ? (
        <Text color={theme.colour("red")} wrap="truncate-end">
          {fit(`error: ${printable(row.error)}`, width - 1)}
        </Text>
      ) : null}
      {lines.map((line, i) => (
        <Text key={i} wrap="truncate-end" dimColor>
          {fit(printable(line), width - 1)}
        </Text>
      ))}
    </Box>
  );
}

/** The selected server's figures against its limits, as the title of its stderr pane. */
export function serverSummary(row: ServerRow): string {
  const parts = [
    row.server,
    row.containerId ? row.containerId.slice(0, 12) : "no container",
    // before the figures the title may cut: an allowlisted server's connections are what SPEC 6 asks for
    ...(row.egress > 0 ? [`egress ${row.egress} (${row.egressDenied} denied)`] : []),
    `mem ${bytes(row.memoryBytes)}/${bytes(row.memoryLimitBytes || row.limits.memoryBytes)}`,
    `cpus ${row.limits.cpus || "-"}`,
    `pids ${row.pids ?? "-"}/${row.limits.pids || "-"}`,
  ];
  return parts.join(" · ");
}

function Title({ text, width }: { text: string; width: number }) {
  const label = `── ${printable(text)} `;
  return (
    <Text bold wrap="truncate-end">
      {label + "─".repeat(Math.max(0, width - 1 - label.length))}
    </Text>
  );
}
