/** Fixed-width text for the dashboard's columns: pure functions, so frames are easy to test. */
import { terminalLine } from "./terminal.ts";

/**
 * Cuts to `width` (with an ellipsis) or pads with spaces; numbers go right-aligned with `align: "right"`. What it
 * fits is made printable first: names, tools and errors come from servers.
 */
export function fit(text: string, width: number, align: "left" | "right" = "left"): string {
  if (width <= 0) return "";
  text = printable(text);
  const chars = [...text];
  if (chars.length > width) return chars.slice(0, width - 1).join("") + "…";
  return align === "left" ? text.padEnd(width) : text.padStart(width);
}

/** 512M, 1.5G, 900K: at most four characters for the sizes containers have. */
export function bytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n) || n < 0) return "-";
  const units = ["B", "K", "M", "G", "T"];
  let value = n;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = value < 10 && unit > 0 ? value.toFixed(1) : String(Math.round(value));
  return `${shown}${units[unit]}`;
}

/** 0.4ms, 12ms, 340ms, 1.2s, 45s, 3m. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "-";
  if (ms < 9.95) return `${ms.toFixed(1)}ms`;
  if (ms < 999.5) return `${Math.round(ms)}ms`;
  if (ms < 9950) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 59_500) return `${Math.round(ms / 1000)}s`;
  return `${Math.round(ms / 60_000)}m`;
}

/** 45s, 12m05s, 3h07m, 2d04h: six characters at most. */
export function uptime(startedAt: number | undefined, now: number): string {
  if (startedAt === undefined) return "-";
  const s = Math.max(0, Math.floor((now - startedAt) / 1000));
  const two = (n: number) => String(n).padStart(2, "0");
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${two(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86_400)}d${two(Math.floor(s / 3600) % 24)}h`;
}

export function percent(n: number | undefined): string {
  return n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(1);
}

const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/** A bar of `width` cells filled by used/limit in eighths of a cell; empty when the limit is unknown. */
export function bar(used: number | undefined, limit: number | undefined, width: number): string {
  if (!used || !limit) return "·".repeat(width);
  const eighths = Math.max(1, Math.min(width * 8, Math.round((used / limit) * width * 8)));
  const full = Math.floor(eighths / 8);
  const part = EIGHTHS[eighths % 8]!;
  return ("█".repeat(full) + part).padEnd(width, "·");
}

/** 10:04:05 in local time. */
export function clock(at: number): string {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}

/** One line with no escape sequence or control character a server might print (they would move the cursor). */
export function printable(line: string): string {
  return terminalLine(line).replace(/\t/g, "  ");
}
