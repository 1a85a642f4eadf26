/**
 * `mcpbox monitor`: the live dashboard. State lives in the MonitorStore (outside React); this component subscribes,
 * redraws at least once a second for uptimes, and maps keys through the SHORTCUTS array. Sized for 80x24.
 */
import { useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { Box, Text, useApp, useInput, useStdout } from "ink";
import type { MonitorStore, ServerRow } from "../monitor/store.ts";
import { selectedRow, visibleRows } from "../monitor/store.ts";
import { CallsPane, StderrPane } from "./activity-panes.tsx";
import { dispatch, SHORTCUTS, type KeyContext } from "./keys.ts";
import { ServerTable, tableLines } from "./server-table.tsx";
import { clock, printable } from "../text/format.ts";
import { theme as makeTheme } from "./theme.ts";

export interface DashboardProps {
  store: MonitorStore;
  restart(row: ServerRow): void;
  now?: () => number;
  tickMs?: number;
}

/** Lines of the fixed parts: title, table header, calls title, stderr title, footer; one spare so Ink never scrolls. */
const FIXED_LINES = 6;

export function layout(rows: number, tableWanted: number) {
  const free = Math.max(6, rows - FIXED_LINES);
  const table = Math.min(tableWanted, Math.max(3, Math.floor(free * 0.45)));
  const calls = Math.ceil((free - table) / 2);
  return { table, calls, stderr: free - table - calls };
}

export function Dashboard({ store, restart, now = Date.now, tickMs = 1000 }: DashboardProps) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const time = useTicker(now, tickMs);
  const { width, height } = useTerminalSize();
  const { exit } = useApp();
  const theme = useMemo(() => makeTheme(), []);

  const selected = selectedRow(state);
  const gateway = state.gateways.find((g) => g.session === selected?.session);
  const ctx: KeyContext = {
    moveSelection: (d) => store.moveSelection(d),
    restartSelected: () => selected && restart(selected),
    startFilter: () => store.startFilter(),
    quit: () => exit(),
    canRestart: selected !== undefined && gateway?.status === "live",
  };

  useInput((input, key) => {
    if (!state.editingFilter) return void dispatch(input, key, ctx);
    if (key.return) store.endFilter(true);
    else if (key.escape) store.endFilter(false);
    else if (key.backspace || key.delete) store.eraseFilter();
    else if (input && !key.ctrl && !key.meta) store.typeFilter(input);
  });

  const sizes = layout(height, tableLines(state).length);
  const servers = visibleRows(state).length;
  const calls = state.gateways.reduce((n, g) => n + g.servers.reduce((m, r) => m + r.calls, 0), 0);
  const title = `mcpbox monitor · ${state.gateways.length} gateway${state.gateways.length === 1 ? "" : "s"} · ${servers} server${servers === 1 ? "" : "s"} · ${calls} calls`;
  return (
    <Box flexDirection="column" width={width}>
      <Box justifyContent="space-between" width={width - 1}>
        <Text bold wrap="truncate-end">{title}</Text>
        <Text>{clock(time)}</Text>
      </Box>
      <ServerTable state={state} height={sizes.table} width={width} now={time} theme={theme} />
      <CallsPane state={state} height={sizes.calls} width={width} theme={theme} />
      <StderrPane state={state} row={selected} height={sizes.stderr} width={width} theme={theme} />
      <Footer state={state} ctx={ctx} />
    </Box>
  );
}

/** The time, updated every tick: uptimes move even when nothing else happens. */
function useTicker(now: () => number, tickMs: number): number {
  const [time, setTime] = useState(now());
  useEffect(() => {
    const timer = setInterval(() => setTime(now()), tickMs);
    return () => clearInterval(timer);
  }, [now, tickMs]);
  return time;
}

/** The terminal's size, read at each render; a resize renders again. */
function useTerminalSize(): { width: number; height: number } {
  const { stdout } = useStdout();
  const [, setResized] = useState(0);
  useEffect(() => {
    const onResize = () => setResized((n) => n + 1);
    stdout.on("resize", onResize);
    return () => void stdout.off("resize", onResize);
  }, [stdout]);
  return { width: Math.max(40, stdout.columns || 80), height: stdout.rows || 24 };
}

function Footer({ state, ctx }: { state: ReturnType<MonitorStore["getState"]>; ctx: KeyContext }) {
  if (state.editingFilter) {
    return <Text wrap="truncate-end">{`filter: ${printable(state.filter)}█   enter keep · esc clear`}</Text>;
  }
  const keys = SHORTCUTS.filter((s) => s.condition?.(ctx) ?? true).map((s) => `${s.key} ${s.label}`);
  const extra = printable([state.filter ? `filter "${state.filter}"` : "", state.notice ?? ""].filter(Boolean).join(" · "));
  return (
    <Text wrap="truncate-end">
      <Text dimColor>{keys.join("  ")}</Text>
      {extra ? `  ${extra}` : ""}
    </Text>
  );
}
