/** The servers of every gateway, one line each under a line per gateway; scrolls to keep the selection visible. */
import { Box, Text } from "ink";
import type { GatewayView, MonitorState, ServerRow } from "../monitor/store.ts";
import { rowKey, visibleRows } from "../monitor/store.ts";
import { headerCells, rowCells } from "./columns.ts";
import { fit, uptime } from "../text/format.ts";
import type { Theme } from "./theme.ts";

type Line = { kind: "gateway"; gateway: GatewayView } | { kind: "server"; row: ServerRow };

export function tableLines(state: MonitorState): Line[] {
  const visible = new Set(visibleRows(state).map(rowKey));
  return state.gateways.flatMap((gateway): Line[] => [
    { kind: "gateway", gateway },
    ...gateway.servers.filter((r) => visible.has(rowKey(r))).map((row): Line => ({ kind: "server", row })),
  ]);
}

/** The slice of lines to show in `height` lines with the selected row inside it. */
export function scrollWindow(lines: Line[], selected: string | undefined, height: number): Line[] {
  if (lines.length <= height) return lines;
  const at = Math.max(0, lines.findIndex((l) => l.kind === "server" && rowKey(l.row) === selected));
  const start = Math.min(Math.max(0, at - height + 1), lines.length - height);
  return lines.slice(start, start + height);
}

export function ServerTable(props: { state: MonitorState; height: number; width: number; now: number; theme: Theme }) {
  const { state, height, width, now, theme } = props;
  const lines = scrollWindow(tableLines(state), state.selected, height);
  return (
    <Box flexDirection="column" height={height + 1}>
      <Text bold wrap="truncate-end">{"  " + headerCells().join(" ")}</Text>
      {lines.map((line) =>
        line.kind === "gateway" ? (
          <GatewayLine key={`g:${line.gateway.session}`} gateway={line.gateway} width={width} now={now} theme={theme} />
        ) : (
          <ServerLine key={rowKey(line.row)} row={line.row} selected={rowKey(line.row) === state.selected} now={now} theme={theme} />
        ),
      )}
    </Box>
  );
}

function GatewayLine({ gateway, width, now, theme }: { gateway: GatewayView; width: number; now: number; theme: Theme }) {
  const info = gateway.info;
  const status = gateway.status === "gone" ? "gone" : gateway.status === "connecting" ? "connecting" : `up ${uptime(info?.startedAt, now)}`;
  const text = `gateway ${gateway.session} · pid ${info?.pid ?? "?"} · ${status} · ${info?.configFile ?? ""}`;
  return (
    <Text color={gateway.status === "gone" ? theme.colour("red") : theme.colour("cyan")} wrap="truncate-end">
      {fit(text, width - 1)}
    </Text>
  );
}

function ServerLine({ row, selected, now, theme }: { row: ServerRow; selected: boolean; now: number; theme: Theme }) {
  const [name, state, ...rest] = rowCells(row, now);
  const errors = rest.pop()!;
  return (
    <Text wrap="truncate-end">
      <Text bold={selected}>{selected ? "› " : "  "}{name}</Text> <Text color={theme.state(row.state)}>{state}</Text> {rest.join(" ")}{" "}
      <Text color={row.errors > 0 ? theme.colour("red") : undefined}>{errors}</Text>
    </Text>
  );
}
