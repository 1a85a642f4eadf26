/**
 * Secret values never reach the audit log, stderr or the monitor (SPEC 4.5, 4.7), neither as written nor in the
 * forms a caller or a server may put them in: JSON-escaped, base64 (standard and URL-safe, padded or not, and
 * embedded in a longer base64 text at any of the three byte offsets), hex in any case, and %-encoded however it is
 * done (every %XX run is decoded and searched as well, `+` read as a space too). Long strings are cut in the audit
 * log. Pure; the forms are computed once per gateway.
 */
export const REDACTED = "[redacted]";
export const MAX_AUDIT_STRING = 1024;
/** Secrets shorter than this are not hidden (they would hide half of every line). */
const MIN_SECRET = 3;
/** The shortest base64 run hidden for a secret embedded in longer base64 text: 36 bits, never matched by chance. */
const MIN_CORE = 6;

export type Redact = (text: string) => string;

/** Hides every occurrence of any secret, in any of its forms (longest first, so overlapping values are fully hidden). */
export function redactor(secretValues: Iterable<string>): Redact {
  // a multi-line secret (a PEM key from secrets.file) printed by a server reaches mcpbox a line at a time: each of its
  // lines of 8 or more characters is a secret too
  const lines = [...secretValues].flatMap((v) => (v.includes("\n") ? v.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length >= 8) : []));
  const secrets = [...new Set([...secretValues, ...lines])].filter((v) => v.length >= MIN_SECRET);
  if (secrets.length === 0) return (text) => text;
  const exact = alternation(secrets.flatMap(exactForms), "g");
  const hex = alternation(secrets.map((v) => Buffer.from(v, "utf8").toString("hex")), "gi");
  const spaced = secrets.some((v) => v.includes(" "));
  const find = (text: string, into: Span[], map?: (s: Span) => Span) => {
    for (const re of [exact, hex]) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) into.push(map ? map([m.index, m.index + m[0].length]) : [m.index, m.index + m[0].length]);
    }
  };
  return (text) => {
    const spans: Span[] = [];
    find(text, spans);
    if (text.includes("%") || (spaced && text.includes("+"))) {
      for (const plus of spaced ? [false, true] : [false]) {
        const decoded = percentDecoded(text, plus);
        if (decoded) find(decoded.text, spans, decoded.original);
      }
    }
    return spans.length === 0 ? text : hide(text, spans);
  };
}

type Span = [start: number, end: number];

/** The forms matched exactly: as written, JSON-escaped, and base64 (whole, and the parts that survive embedding). */
function exactForms(v: string): string[] {
  const bytes = Buffer.from(v, "utf8");
  const b64 = bytes.toString("base64");
  const base64 = [b64, b64.replace(/=+$/, "")];
  for (let offset = 0; offset < 3; offset++) {
    const core = embeddedCore(bytes, offset);
    if (core.length >= MIN_CORE) base64.push(core);
  }
  return [v, JSON.stringify(v).slice(1, -1), ...base64, ...base64.map(toUrlSafe)];
}

const toUrlSafe = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_");

/**
 * The base64 characters of `bytes` placed `offset` bytes after a 3-byte boundary inside any longer text: only the
 * characters whose six bits all come from the secret, so they are the same whatever surrounds it.
 */
function embeddedCore(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64").replace(/=+$/, "");
  const first = Math.ceil((8 * offset) / 6);
  const last = Math.floor((8 * (offset + bytes.length)) / 6); // exclusive
  return last > first ? encoded.slice(first, last) : "";
}

function alternation(forms: string[], flags: string): RegExp {
  const unique = [...new Set(forms.filter((f) => f.length > 0))].sort((a, b) => b.length - a.length);
  return new RegExp(unique.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), flags);
}

/**
 * The text with every run of %XX escapes decoded (and `+` as a space when asked), and a map from a span of it back
 * to the span of the original it came from (a match that starts or ends inside a run takes the whole run).
 */
function percentDecoded(text: string, plus: boolean): { text: string; original: (s: Span) => Span } | undefined {
  const runs = plus ? /(?:%[0-9a-fA-F]{2}|\+)+/g : /(?:%[0-9a-fA-F]{2})+/g;
  // pieces: [decodedStart, originalStart, originalEnd, literal]
  const pieces: [number, number, number, boolean][] = [];
  let out = "";
  let at = 0;
  for (let m = runs.exec(text); m; m = runs.exec(text)) {
    if (m.index > at) {
      pieces.push([out.length, at, m.index, true]);
      out += text.slice(at, m.index);
    }
    pieces.push([out.length, m.index, m.index + m[0].length, false]);
    out += decodeRun(m[0]);
    at = m.index + m[0].length;
  }
  if (pieces.length === 0) return undefined;
  pieces.push([out.length, at, text.length, true]);
  out += text.slice(at);
  const pieceAt = (i: number) => {
    let lo = 0;
    let hi = pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (pieces[mid]![0] <= i) lo = mid;
      else hi = mid - 1;
    }
    return pieces[lo]!;
  };
  const original = ([s, e]: Span): Span => {
    const a = pieceAt(s);
    const b = pieceAt(e - 1);
    return [a[3] ? a[1] + (s - a[0]) : a[1], b[3] ? b[1] + (e - b[0]) : b[2]];
  };
  return { text: out, original };
}

function decodeRun(run: string): string {
  let ascii = "";
  for (let i = 0; i < run.length; ) {
    if (run.charCodeAt(i) === 0x2b) {
      ascii += " ";
      i++;
      continue;
    }
    const byte = parseInt(run.slice(i + 1, i + 3), 16);
    if (byte >= 0x80) return utf8Run(run); // rare: decode the whole run as UTF-8
    ascii += String.fromCharCode(byte);
    i += 3;
  }
  return ascii;
}

const utf8Run = (run: string) =>
  run
    .split(/(\+)/)
    .map((p) => (p === "+" ? " " : Buffer.from(p.replace(/%/g, ""), "hex").toString("utf8")))
    .join("");

/** The text with the (possibly overlapping) spans replaced by one REDACTED each. */
function hide(text: string, spans: Span[]): string {
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = "";
  let at = 0;
  for (const [s, e] of spans) {
    if (e <= at) continue;
    if (s >= at) out += text.slice(at, s) + REDACTED;
    at = e;
  }
  return out + text.slice(at);
}

/** A copy of a JSON value with secrets redacted (in keys too) and strings over `max` characters cut. */
export function auditValue(value: unknown, redact: Redact, max = MAX_AUDIT_STRING, depth = 0): unknown {
  if (typeof value === "string") {
    const clean = redact(value);
    return clean.length > max ? `${clean.slice(0, max)}… (${clean.length} chars)` : clean;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth > 20) return "…";
  if (Array.isArray(value)) return value.map((v) => auditValue(v, redact, max, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    let key = redact(k);
    for (let n = 2; Object.hasOwn(out, key); n++) key = `${redact(k)} (${n})`; // two keys hidden alike keep both values
    const clean = auditValue(v, redact, max, depth + 1);
    // defined, not assigned: a key named __proto__ stays a key (every other key is a plain data member either way)
    if (key === "__proto__") Object.defineProperty(out, key, { value: clean, enumerable: true, writable: true, configurable: true });
    else out[key] = clean;
  }
  return out;
}
