/**
 * The dashboard's keys as data (Shopify CLI style): what the footer lists and what useInput dispatches are the same
 * array, so a key on screen always works and a working key is always on screen.
 */
import type { Key } from "ink";

export interface KeyContext {
  moveSelection(delta: number): void;
  restartSelected(): void;
  startFilter(): void;
  quit(): void;
  /** a server is selected and its gateway is live */
  canRestart: boolean;
}

export interface Shortcut {
  key: string;
  label: string;
  matches(input: string, key: Key): boolean;
  condition?(ctx: KeyContext): boolean;
  action(ctx: KeyContext, input: string, key: Key): void;
}

export const SHORTCUTS: Shortcut[] = [
  {
    key: "↑↓/jk",
    label: "select",
    matches: (i, k) => k.upArrow || k.downArrow || i === "j" || i === "k",
    action: (c, i, k) => c.moveSelection(k.upArrow || i === "k" ? -1 : 1),
  },
  { key: "r", label: "restart", matches: (i) => i === "r", condition: (c) => c.canRestart, action: (c) => c.restartSelected() },
  { key: "/", label: "filter", matches: (i) => i === "/", action: (c) => c.startFilter() },
  { key: "q", label: "quit", matches: (i, k) => i === "q" || k.escape, action: (c) => c.quit() },
];

/** Runs the shortcut for a key press; returns whether one matched. */
export function dispatch(input: string, key: Key, ctx: KeyContext): boolean {
  const shortcut = SHORTCUTS.find((s) => s.matches(input, key) && (s.condition?.(ctx) ?? true));
  shortcut?.action(ctx, input, key);
  return shortcut !== undefined;
}
