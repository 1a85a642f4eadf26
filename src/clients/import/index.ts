/**
 * `mcpbox init --from <client or path>`: read an MCP client's configuration and write a sandbox.config.ts that runs
 * the same servers in containers. Never copies a secret value; keeps what it cannot convert as comments saying why.
 */
import fs from "node:fs";
import os from "node:os";
import { parse as parseToml } from "smol-toml";
import { parseDocument } from "yaml";
import { McpboxError, messageOf } from "../../errors.ts";
import { parseJsonc } from "../formats/json.ts";
import { convertEntry } from "./convert.ts";
import { emitConfig } from "./emit.ts";
import { extractEntries } from "./extract.ts";
import { locate, type Located } from "./locate.ts";
import type { Conversion, ImportEnv } from "./types.ts";
import { realEnv } from "../../config/checks.ts";

export interface ConvertOptions {
  cwd: string;
  home?: string;
  platform?: NodeJS.Platform;
}

export interface ConvertResult {
  /** the file that was read */
  source: string;
  /** the text of sandbox.config.ts */
  text: string;
  servers: number;
  skipped: number;
  /** about the file chosen (a project file passed over, or read for want of the user's own) */
  notes: string[];
}

export async function convertClientConfig(from: string, opts: ConvertOptions): Promise<ConvertResult> {
  const located = locate(from, opts);
  const doc = readDocument(located);
  const env: ImportEnv = realEnv(opts.home ?? os.homedir());
  const found = extractEntries(doc, located.client, opts.cwd);
  if (found.length === 0) {
    throw new McpboxError("config", `${located.file} has no MCP servers to convert`, {
      hint: "run `mcpbox init` without --from for a commented starting point",
    });
  }
  const names = new Set<string>();
  const conversions: Conversion[] = found.map(({ name, entry }) => convertEntry(uniqueName(name, names), entry, env));
  const servers = conversions.filter((c) => c.kind === "converted").length;
  return { source: located.file, text: emitConfig(located.file, conversions), servers, skipped: conversions.length - servers, notes: located.notes };
}

function readDocument({ file, format }: Located): unknown {
  const text = fs.readFileSync(file, "utf8");
  if (format === "yaml") {
    const doc = parseDocument(text);
    if (doc.errors[0]) throw new McpboxError("config", `${file}: cannot be parsed: ${doc.errors[0].message.split("\n")[0]}`);
    return doc.toJSON() as unknown;
  }
  if (format === "toml") {
    try {
      return parseToml(text);
    } catch (e) {
      throw new McpboxError("config", `${file}: cannot be parsed: ${messageOf(e).split("\n")[0]}`);
    }
  }
  return text.trim() === "" ? {} : parseJsonc(text, file);
}

/** Server names must be lowercase letters, digits, _ or -, starting with a letter or digit, at most 48. */
export function uniqueName(raw: string, taken: Set<string>): string {
  const base =
    raw
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, "-")
      .replace(/^[^a-z0-9]+/, "")
      .slice(0, 44)
      .replace(/-+$/, "") || "server";
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
  taken.add(name);
  return name;
}
