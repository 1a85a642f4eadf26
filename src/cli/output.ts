/** Colour only on a TTY without NO_COLOR (SPEC 1). Painted text is made terminal-safe first (text/terminal.ts). */
import fs from "node:fs";
import { styleText } from "node:util";
import { terminalText } from "../text/terminal.ts";

/**
 * process.stdout and process.stderr are made on first use, and making one loads Node's stream code (and net for a
 * pipe): 3-5 ms of every start of a command that prints a line (issue 15). Once runMain has called trackStdio (the
 * executable's start, before anything could have used them), out() and err() write to fds 1 and 2 directly while
 * nobody has made the stream; from then on (or after any write error, EAGAIN included) they go through it, so the
 * order of what is written stays the order it was asked for. Windows keeps the streams.
 */
const made = { stdout: false, stderr: false };
let tracking = false;

export function trackStdio(): void {
  if (tracking || process.platform === "win32") return;
  const descriptors = (["stdout", "stderr"] as const).map((name) => [name, Object.getOwnPropertyDescriptor(process, name)] as const);
  if (descriptors.some(([, d]) => !d?.get || !d.configurable)) return;
  for (const [name, d] of descriptors) {
    const get = d!.get!;
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: d!.enumerable ?? true,
      get() {
        made[name] = true;
        return get.call(process) as NodeJS.WriteStream;
      },
    });
  }
  tracking = true;
}

/** Was the stream made (or could it have been: nothing tracked)? run.ts flushes only those before it exits. */
export const streamMade = (name: "stdout" | "stderr"): boolean => !tracking || made[name];

function write(name: "stdout" | "stderr", text: string): void {
  if (streamMade(name)) {
    process[name].write(text);
    return;
  }
  const data = Buffer.from(text);
  let at = 0;
  try {
    while (at < data.length) at += fs.writeSync(name === "stdout" ? 1 : 2, data, at);
  } catch {
    process[name].write(data.subarray(at)); // the stream says what went wrong (EPIPE) or waits (EAGAIN), as before
  }
}

/** isatty(fd) without making the stream: a file, pipe or socket is none, nor /dev/null; any other device asks it. */
function isTty(name: "stdout" | "stderr"): boolean {
  if (streamMade(name)) return process[name].isTTY === true;
  try {
    const st = fs.fstatSync(name === "stdout" ? 1 : 2);
    if (!st.isCharacterDevice() || st.rdev === fs.statSync("/dev/null").rdev) return false;
  } catch {
    // fall through: the stream knows
  }
  return process[name].isTTY === true;
}

const colour = (name: "stdout" | "stderr") => !("NO_COLOR" in process.env) && isTty(name);

type Style = Parameters<typeof styleText>[0];
const style = (s: Style) => (text: string) => (colour("stderr") ? styleText(s, terminalText(text)) : terminalText(text));

export const paint = {
  red: style("red"),
  yellow: style("yellow"),
  green: style("green"),
  dim: style("dim"),
  bold: style("bold"),
};

export const out = (text: string) => write("stdout", text.endsWith("\n") ? text : text + "\n");
export const err = (text: string) => write("stderr", text.endsWith("\n") ? text : text + "\n");

// JSON.stringify leaves DEL, the C1 controls (8-bit CSI is \u009b) and bidi overrides raw; they occur only inside strings
// eslint-disable-next-line no-control-regex
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const escapeUnsafe = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** One JSON document on stdout, with nothing in it a terminal would obey. */
export const jsonText = (value: unknown): string => (JSON.stringify(value, null, 2) ?? "null").replace(JSON_UNSAFE, escapeUnsafe);
export const printJson = (value: unknown) => out(jsonText(value));
