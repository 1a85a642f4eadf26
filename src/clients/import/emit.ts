/**
 * The text of sandbox.config.ts: plain TypeScript object literals, notes as comments, unconverted entries as comments.
 * Every string of the client's file (a cloned repository's, or an entry a README said to paste) reaches it as a
 * literal or inside a `//` comment, and the file is run as a module: a string is JSON.stringify's (no quote or `${`
 * leaves it), a key is an identifier or such a string (`__proto__` computed, so it stays a key and never sets the
 * prototype), and a comment is one line. What would hide text from the reader (controls, bidi overrides and
 * isolates, zero-width and other invisible characters, line and paragraph separators that an editor breaks the
 * line at) is written as a `\u` escape in literals (the same value) and shown escaped in comments, whose words that
 * look like a secret are redacted (hrev).
 */
import type { Conversion } from "./types.ts";
import { redactText } from "./secrets.ts";

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function emitConfig(source: string, conversions: readonly Conversion[]): string {
  const lines = [
    'import { defineConfig } from "mcpbox";',
    "",
    `// Converted from ${oneLine(source)} by \`mcpbox init --from\`.`,
    "// Secrets were not copied: each names the environment variable `mcpbox serve` reads it from.",
    "export default defineConfig({",
    "  servers: {",
  ];
  for (const c of conversions) {
    if (c.kind === "converted") {
      for (const n of c.notes) lines.push(`    // ${oneLine(n)}`);
      lines.push(`    ${key(c.name)}: ${literal(c.server, 2)},`);
    }
  }
  const skipped = conversions.filter((c) => c.kind === "skipped");
  if (skipped.length > 0) lines.push("    // Not converted:");
  for (const s of skipped) {
    lines.push(`    // ${oneLine(s.name)}: ${oneLine(s.reason)}`);
    lines.push(`    //   ${oneLine(s.shown)}`);
  }
  lines.push("  },", "});", "");
  return lines.join("\n");
}

/** Characters that hide or reorder text: controls, format characters (bidi, zero-width, BOM, tags), separators other than the space, private and unassigned code points, and the Hangul fillers that render blank. */
const HIDING = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\u115f\u1160\u3164\uffa0]|(?! )\p{Zs}/gu;

const escaped = (ch: string) => {
  const cp = ch.codePointAt(0)!;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, "0")}`;
};

/** A comment's text: one line, redacted, nothing hidden. */
const oneLine = (s: string) => redactText(s.replace(/[\r\n\u2028\u2029]+/g, " ")).replace(HIDING, escaped);

/** A string literal that reads as it evaluates. */
const str = (s: string) => JSON.stringify(s).replace(HIDING, escaped);

const key = (k: string) => (k === "__proto__" ? `[${str(k)}]` : IDENT.test(k) ? k : str(k));

/** A value as a TypeScript literal, indented by `depth` levels of two spaces. */
export function literal(value: unknown, depth: number): string {
  const pad = "  ".repeat(depth + 1);
  const end = "  ".repeat(depth);
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== "object" || v === null)) {
      const flat = `[${value.map((v) => literal(v, 0)).join(", ")}]`;
      if (flat.length <= 80) return flat;
    }
    return `[\n${value.map((v) => `${pad}${literal(v, depth + 1)},`).join("\n")}\n${end}]`;
  }
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const flat = `{ ${entries.map(([k, v]) => `${key(k)}: ${literal(v, 0)}`).join(", ")} }`;
    if (flat.length <= 80 && !flat.includes("\n")) return flat;
    return `{\n${entries.map(([k, v]) => `${pad}${key(k)}: ${literal(v, depth + 1)},`).join("\n")}\n${end}}`;
  }
  if (typeof value === "string") return str(value);
  return JSON.stringify(value) ?? "undefined";
}
