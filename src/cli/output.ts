/** Colour only on a TTY without NO_COLOR (SPEC 1). */
import { styleText } from "node:util";

const colour = (stream: NodeJS.WriteStream) => stream.isTTY === true && !("NO_COLOR" in process.env);

type Style = Parameters<typeof styleText>[0];
const style = (s: Style) => (text: string) => (colour(process.stderr) ? styleText(s, text) : text);

export const paint = {
  red: style("red"),
  yellow: style("yellow"),
  green: style("green"),
  dim: style("dim"),
  bold: style("bold"),
};

export const out = (text: string) => process.stdout.write(text.endsWith("\n") ? text : text + "\n");
export const err = (text: string) => process.stderr.write(text.endsWith("\n") ? text : text + "\n");
export const printJson = (value: unknown) => out(JSON.stringify(value, null, 2));
