/** The text of sandbox.config.ts: plain TypeScript object literals, notes as comments, unconverted entries as comments. */
import type { Conversion } from "./types.ts";

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

const oneLine = (s: string) => s.replace(/[\r\n\u2028\u2029]+/g, " ");

const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));

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
  return JSON.stringify(value) ?? "undefined";
}
