/**
 * `mcpbox init --from <client or path>`: read an MCP client's configuration and write a sandbox.config.ts that runs
 * the same servers in containers. Never copies a secret value; keeps what it cannot convert as comments saying why.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
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
import { checkRawConfigQuickly } from "../../config/quick-check.ts";
import { dotted, errorsOf } from "../../config/problems.ts";
import { redactedCommand } from "./secrets.ts";

export interface ConvertOptions {
  cwd: string;
  home?: string;
  platform?: NodeJS.Platform;
  /** where sandbox.config.ts will be written (checks such as a writable mount of its folder need it) */
  configFile?: string;
}

/** A client file larger than this is not read: ~/.claude.json, the largest (it keeps history), stays well under. */
export const MAX_CLIENT_FILE_BYTES = 64 * 1024 * 1024;

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
  const env: ImportEnv = realEnv(opts.home ?? os.homedir());
  let found: ReturnType<typeof extractEntries>;
  let conversions: Conversion[];
  try {
    found = extractEntries(readDocument(located), located.client, opts.cwd);
    const names = new Set<string>();
    conversions = found.map(({ name, entry }) => convertEntry(uniqueName(name, names), entry, env));
  } catch (e) {
    // a hostile file nests arrays or objects deeper than any parser's (or String()'s) recursion goes
    if (e instanceof RangeError) throw new McpboxError("config", `${located.file}: cannot be read: it nests values too deeply`);
    throw e;
  }
  if (found.length === 0) {
    throw new McpboxError("config", `${located.file} has no MCP servers to convert`, {
      hint: "run `mcpbox init` without --from for a commented starting point",
    });
  }
  const configFile = opts.configFile ?? path.join(opts.cwd, "sandbox.config.ts");
  conversions = await refusedByValidate(conversions, found, configFile, opts.home ?? os.homedir());
  const servers = conversions.filter((c) => c.kind === "converted").length;
  return { source: located.file, text: emitConfig(located.file, conversions), servers, skipped: conversions.length - servers, notes: located.notes };
}

/**
 * The config written must validate as it is: a server `validate` would refuse (a key the schema does not take, a
 * writable mount of the folder the config lies in, anything a later check adds) is kept as a comment naming why,
 * never written as a config that fails, and never made to pass with a `dangerous` opt-in. Checked together, then
 * again without the refused ones (a problem between two servers may go with one of them).
 */
async function refusedByValidate(
  conversions: Conversion[],
  found: ReturnType<typeof extractEntries>,
  configFile: string,
  home: string,
): Promise<Conversion[]> {
  const env = { ...realEnv(home), modules: (f: string) => [f] }; // the file does not exist yet: it imports nothing
  let out = conversions;
  const converted = () => out.flatMap((c) => (c.kind === "converted" ? [[c.name, c.server] as const] : []));
  // each server alone first (one refused for itself is no problem of the others: a mount inside its writable one),
  // then those left together, until they pass
  for (let round = 0; round < 8; round++) {
    const groups = round === 0 ? converted().map((s) => [s]) : [converted()];
    const why = new Map<string, string>();
    for (const group of groups) {
      const servers = Object.fromEntries(group);
      if (group.length === 0) continue;
      const { problems } = await checkRawConfigQuickly({ servers }, configFile, env);
      for (const p of errorsOf(problems)) {
        const name = p.path[0] === "servers" && typeof p.path[1] === "string" && Object.hasOwn(servers, p.path[1]) ? p.path[1] : undefined;
        const where = name ? dotted(p.path.slice(2)) : dotted(p.path);
        const text = `validate would refuse it: ${where === "(root)" ? "" : `${where}: `}${p.message}${p.hint ? ` (${p.hint})` : ""}`;
        for (const n of name ? [name] : Object.keys(servers)) if (!why.has(n)) why.set(n, text);
      }
    }
    if (why.size === 0 && round > 0) return out;
    out = out.map((c, i) => {
      const reason = c.kind === "converted" ? why.get(c.name) : undefined;
      if (reason === undefined) return c;
      const { entry } = found[i]!;
      return { kind: "skipped", name: c.name, reason, shown: entry.remote ?? redactedCommand(entry.command, entry.args) };
    });
  }
  return out;
}

/**
 * The client file's text: only a regular file (a FIFO would block the read forever, a device such as /dev/zero never
 * end it), opened without blocking and read to at most MAX_CLIENT_FILE_BYTES. A project file is a cloned
 * repository's or an unpacked archive's, which can hold a FIFO or a link to a device (hrev).
 */
export function readClientFile(file: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    throw new McpboxError("config", `${file}: cannot be read: ${messageOf(e)}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      throw new McpboxError("config", `${file} is not a regular file (${kindOf(st)}); mcpbox reads a client's configuration only from a file`, {
        hint: "pass the client's configuration file itself: mcpbox init --from <path>",
      });
    }
    const limit = MAX_CLIENT_FILE_BYTES;
    if (st.size > limit) throw tooLarge(file, limit);
    // read to the end, not to st.size: it may grow while read, and a kernel file (/proc, /sys) says 0
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(Math.max(st.size - length, 64 * 1024), limit + 1 - length));
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      length += n;
      if (length > limit) throw tooLarge(file, limit);
    }
    return Buffer.concat(chunks, length).toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
}

const tooLarge = (file: string, limit: number) =>
  new McpboxError("config", `${file} is larger than ${limit / 1024 / 1024} MiB; that is no client configuration mcpbox reads`, {
    hint: "pass the client's configuration file itself: mcpbox init --from <path>",
  });

function kindOf(st: fs.Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSocket()) return "a socket";
  if (st.isDirectory()) return "a folder";
  return "not a file";
}

function readDocument({ file, format }: Located): unknown {
  const text = readClientFile(file);
  if (format === "yaml") {
    const doc = parseDocument(text);
    if (doc.errors[0]) throw new McpboxError("config", `${file}: cannot be parsed: ${doc.errors[0].message.split("\n")[0]}`);
    try {
      return doc.toJSON() as unknown;
    } catch (e) {
      if (e instanceof RangeError) throw e;
      // an alias bomb (yaml refuses more than 100 alias expansions) or a merge of a non-map
      throw new McpboxError("config", `${file}: cannot be parsed: ${messageOf(e).split("\n")[0]}`);
    }
  }
  if (format === "toml") {
    try {
      return parseToml(text);
    } catch (e) {
      if (e instanceof RangeError) throw e;
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
