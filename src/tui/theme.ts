/** Colours of the dashboard; none at all with NO_COLOR (SPEC 1). */
import type { ServerState } from "../monitor/events.ts";
import type { CallOutcome } from "../monitor/events.ts";

export type Colour = "green" | "yellow" | "red" | "cyan" | "gray" | undefined;

export interface Theme {
  colour(c: Colour): Colour;
  state(s: ServerState | "gone"): Colour;
  outcome(o: CallOutcome): Colour;
}

export function theme(env: NodeJS.ProcessEnv = process.env): Theme {
  const on = !("NO_COLOR" in env);
  const colour = (c: Colour): Colour => (on ? c : undefined);
  return {
    colour,
    state: (s) => colour(s === "running" ? "green" : s === "idle" ? "cyan" : s === "failed" || s === "gone" ? "red" : s === "stopped" ? "gray" : "yellow"),
    outcome: (o) => colour(o === "ok" ? "green" : o === "cancelled" ? "gray" : o === "denied" ? "yellow" : "red"),
  };
}
