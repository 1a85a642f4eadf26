/** Colour only on a TTY without NO_COLOR (SPEC 1). Painted text is made terminal-safe first (text/terminal.ts). */
import { styleText } from "node:util";
import { terminalText } from "../text/terminal.ts";

const colour = (stream: NodeJS.WriteStream) => stream.isTTY === true && !("NO_COLOR" in process.env);

type Style = Parameters<typeof styleText>[0];
const style = (s: Style) => (text: string) => (colour(process.stderr) ? styleText(s, terminalText(text)) : terminalText(text));

export const paint = {
  red: style("red"),
  yellow: style("yellow"),
  green: style("green"),
  dim: style("dim"),
  bold: style("bold"),
};

export const out = (text: string) => process.stdout.write(text.endsWith("\n") ? text : text + "\n");
export const err = (text: string) => process.stderr.write(text.endsWith("\n") ? text : text + "\n");

// JSON.stringify leaves DEL, the C1 controls (8-bit CSI is \u009b) and bidi overrides raw; they occur only inside strings
// eslint-disable-next-line no-control-regex
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const escapeUnsafe = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** One JSON document on stdout, with nothing in it a terminal would obey. */
export const jsonText = (value: unknown): string => (JSON.stringify(value, null, 2) ?? "null").replace(JSON_UNSAFE, escapeUnsafe);
export const printJson = (value: unknown) => out(jsonText(value));
