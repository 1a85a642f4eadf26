/**
 * Text a server controls (names, descriptions, stderr, errors, build output) made safe to print on a terminal:
 * escape sequences (CSI, OSC, DCS, SOS, PM, APC, 7-bit or 8-bit) are dropped whole, every other C0/C1 control,
 * DEL, line separators and bidi overrides become visible escapes (`\x07`, `\r`, `\u202e`). Tabs and all other
 * Unicode are kept. One linear pass; pure, imports nothing.
 */

const ESC = 0x1b;
const BEL = 0x07;
const ST8 = 0x9c; // 8-bit string terminator
const CSI8 = 0x9b;
/** 7-bit introducers of control strings (OSC, DCS, SOS, PM, APC) and their 8-bit forms. */
const STRING_INTRO = new Set([0x5d, 0x50, 0x58, 0x5e, 0x5f]);
const STRING_INTRO8 = new Set([0x9d, 0x90, 0x98, 0x9e, 0x9f]);

// eslint-disable-next-line no-control-regex
const UNSAFE_LINE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_TEXT = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Text of several lines: keeps `\n` and `\t`, drops a `\r` that ends a line. */
export function terminalText(text: string): string {
  return UNSAFE_TEXT.test(text) ? clean(text, true) : text;
}

/** One line: `\n` shown as `\n` too, so a server cannot start a line that looks like mcpbox's own. */
export function terminalLine(text: string): string {
  return UNSAFE_LINE.test(text) ? clean(text, false) : text;
}

/** true when the text holds anything terminalText would change. */
export const hasTerminalControls = (text: string): boolean => UNSAFE_TEXT.test(text);

function clean(s: string, keepNewlines: boolean): string {
  let out = "";
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === ESC) {
      const end = escapeEnd(s, i);
      if (end > i) i = end;
      else {
        out += "\\x1b";
        i++;
      }
    } else if (c === CSI8) i = csiEnd(s, i + 1);
    else if (STRING_INTRO8.has(c)) i = stringEnd(s, i + 1);
    else if (c === 0x09 || (c === 0x0a && keepNewlines)) out += s[i++];
    else if (c === 0x0d && (i + 1 === s.length || s.charCodeAt(i + 1) === 0x0a)) i++; // CRLF, or a line's last \r
    else if (unsafe(c)) {
      out += visible(c);
      i++;
    } else out += s[i++];
  }
  return out;
}

const unsafe = (c: number) =>
  c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);

function visible(c: number): string {
  if (c === 0x0a) return "\\n";
  if (c === 0x0d) return "\\r";
  return c <= 0xff ? `\\x${c.toString(16).padStart(2, "0")}` : `\\u${c.toString(16).padStart(4, "0")}`;
}

/** Index after the escape sequence that starts with ESC at `i`, or `i` when the ESC starts none (shown instead). */
function escapeEnd(s: string, i: number): number {
  const next = s.charCodeAt(i + 1); // NaN at the end
  if (next === 0x5b) return csiEnd(s, i + 2);
  if (STRING_INTRO.has(next)) return stringEnd(s, i + 2);
  let j = i + 1;
  while (inRange(s.charCodeAt(j), 0x20, 0x2f)) j++; // intermediates (ESC ( B, ESC # 8)
  return inRange(s.charCodeAt(j), 0x30, 0x7e) ? j + 1 : j > i + 1 ? j : i;
}

/** After a CSI's parameters, intermediates and final byte; a cut-off one ends where it stops. */
function csiEnd(s: string, j: number): number {
  while (inRange(s.charCodeAt(j), 0x30, 0x3f)) j++;
  while (inRange(s.charCodeAt(j), 0x20, 0x2f)) j++;
  return inRange(s.charCodeAt(j), 0x40, 0x7e) ? j + 1 : j;
}

/**
 * After a control string's terminator (BEL, ESC \ or 8-bit ST). Without one before the next ESC or C1 introducer,
 * only the introducer is dropped: the rest is then plain text (and the scan stays linear).
 */
function stringEnd(s: string, j: number): number {
  for (let k = j; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === BEL || c === ST8) return k + 1;
    if (c === ESC) return s.charCodeAt(k + 1) === 0x5c ? k + 2 : j;
    if (c === CSI8 || STRING_INTRO8.has(c)) return j;
  }
  return j;
}

const inRange = (c: number, lo: number, hi: number) => c >= lo && c <= hi;
