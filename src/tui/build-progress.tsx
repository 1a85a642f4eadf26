/**
 * The live view of `mcpbox build` on a terminal: one row per server (state, current step, elapsed seconds). State
 * lives outside React in a small store that notifies on change; a one-second tick keeps the clocks moving.
 */
import React, { useEffect, useState } from "react";
import { Box, render, Text } from "ink";
import type { BuildEvent } from "../images/builder.ts";
import { formatSize } from "../images/describe.ts";
import { terminalLine } from "../text/terminal.ts";

type State = "waiting" | "checking" | "building" | "pushing" | "cached" | "done" | "failed" | "pulling" | "pulled" | "present";

export interface Row {
  server: string;
  state: State;
  step: string;
  startedAt: number | undefined;
  endedAt: number | undefined;
  note: string;
}

export class BuildStore {
  readonly rows: Row[];
  private listeners = new Set<() => void>();

  constructor(servers: readonly string[]) {
    this.rows = servers.map((server) => ({ server, state: "waiting", step: "", startedAt: undefined, endedAt: undefined, note: "" }));
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  apply(e: BuildEvent, now = Date.now()): void {
    const row = this.rows.find((r) => r.server === e.server);
    if (!row) return;
    if (e.type === "checking") Object.assign(row, { state: "checking", startedAt: now });
    else if (e.type === "building") Object.assign(row, { state: "building", note: e.tag });
    else if (e.type === "step") row.step = `Step ${e.step.n}/${e.step.total}`;
    else if (e.type === "pushing") Object.assign(row, { state: "pushing", note: e.ref });
    else if (e.type === "cached") Object.assign(row, { state: "cached", endedAt: now, note: e.result.tag });
    else if (e.type === "done") Object.assign(row, { state: "done", endedAt: now, note: `${e.result.tag} ${formatSize(e.result.size)}` });
    else if (e.type === "pulling") Object.assign(row, { state: "pulling", startedAt: now, note: e.image });
    else if (e.type === "pull-progress") row.step = layersOf(e.line) ?? row.step;
    else if (e.type === "pulled") Object.assign(row, { state: e.result.pulled ? "pulled" : "present", step: "", endedAt: now, note: e.result.image });
    else Object.assign(row, { state: "failed", endedAt: now, note: e.error.message });
    row.note = terminalLine(row.note); // a failure's message can quote the build's output
    for (const fn of this.listeners) fn();
  }
}

/** "layer 3f2a pulled (2/5)" → "layers 2/5": the step column stays narrow. */
const layersOf = (line: string) => /\((\d+\/\d+)\)$/.exec(line)?.[1]?.replace(/^/, "layers ");

const COLOUR: Record<State, string> = {
  waiting: "gray",
  checking: "gray",
  building: "cyan",
  pushing: "cyan",
  cached: "green",
  done: "green",
  failed: "red",
  pulling: "cyan",
  pulled: "green",
  present: "green",
};

export function BuildProgress({ store, now }: { store: BuildStore; now?: () => number }): React.ReactElement {
  const clock = now ?? Date.now;
  const [, setTick] = useState(0);
  useEffect(() => {
    const unsubscribe = store.subscribe(() => setTick((t) => t + 1));
    const timer = setInterval(() => setTick((t) => t + 1), 1000);
    timer.unref();
    return () => {
      unsubscribe();
      clearInterval(timer);
    };
  }, [store]);
  const width = Math.max(...store.rows.map((r) => r.server.length), 6);
  return (
    <Box flexDirection="column">
      {store.rows.map((r) => (
        <Box key={r.server} gap={1}>
          <Text bold>{r.server.padEnd(width)}</Text>
          <Text color={COLOUR[r.state]}>{r.state.padEnd(8)}</Text>
          <Text>{r.step.padEnd(11)}</Text>
          <Text dimColor>{elapsed(r, clock()).padStart(5)}</Text>
          <Text dimColor wrap="truncate-end">{r.note}</Text>
        </Box>
      ))}
    </Box>
  );
}

function elapsed(r: Row, now: number): string {
  if (r.startedAt === undefined) return "";
  return `${Math.floor(((r.endedAt ?? now) - r.startedAt) / 1000)}s`;
}

/** Renders the view on stdout until close(). */
export function startBuildProgress(servers: readonly string[]): { onEvent: (e: BuildEvent) => void; close: () => void } {
  const store = new BuildStore(servers);
  const app = render(<BuildProgress store={store} />, { exitOnCtrlC: true, patchConsole: false });
  return {
    onEvent: (e) => store.apply(e),
    close: () => {
      app.rerender(<BuildProgress store={store} />);
      app.unmount();
    },
  };
}
