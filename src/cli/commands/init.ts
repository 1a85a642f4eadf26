/**
 * `mcpbox init [dir] [--from <client or path>] [--force]`: a commented sandbox.config.ts that validates as written,
 * plus the types an editor and `tsc --noEmit` need (no npm install of mcpbox).
 */
import fs from "node:fs";
import path from "node:path";
import type { Context } from "../context.ts";
import { McpboxError } from "../../errors.ts";
import { CONFIG_NAMES } from "../../config/load.ts";
import { readAsset } from "../../assets.ts";
import { err, out, paint } from "../output.ts";
import { createExclusive, makeFolders, occupied, replaceFile } from "./_files.ts";

export const TYPES_PATH = ".mcpbox/types/mcpbox.d.ts";

const EDITOR_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "preserve",
    moduleResolution: "bundler",
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  },
  include: ["sandbox.config.ts", TYPES_PATH],
};

export async function run(ctx: Context, dirArg = "."): Promise<number> {
  const dir = path.resolve(ctx.cwd, dirArg);
  const force = ctx.options.force === true;
  const existing = CONFIG_NAMES.map((n) => path.join(dir, n)).find(occupied);
  if (existing && !force) throw alreadyThere(ctx, existing);
  let text = readAsset("templates/init/sandbox.config.ts");
  let summary = "";
  if (typeof ctx.options.from === "string") {
    const { convertClientConfig } = await import("../../clients/import/index.ts");
    const converted = await convertClientConfig(ctx.options.from, { cwd: ctx.cwd });
    text = `/// <reference path="./${TYPES_PATH}" />\n${converted.text}`;
    summary = ` from ${converted.source}: ${converted.servers} server(s) converted, ${converted.skipped} kept as comments`;
    for (const note of converted.notes) err(`${paint.yellow("note:")} ${note}`);
  }
  fs.mkdirSync(dir, { recursive: true });
  const typesDir = makeFolders(dir, path.dirname(TYPES_PATH));
  const configFile = path.join(dir, "sandbox.config.ts");
  if (existing && existing !== configFile) fs.rmSync(existing); // a link is removed, not its target
  // new files are created exclusively; with --force a new file is renamed over the old one (or over a link)
  if (force) replaceFile(configFile, text);
  else if (!createExclusive(configFile, text)) throw alreadyThere(ctx, configFile);
  replaceFile(path.join(typesDir, path.basename(TYPES_PATH)), readAsset("templates/init/mcpbox.d.ts"));
  const written = [path.relative(ctx.cwd, configFile) || "sandbox.config.ts", TYPES_PATH];
  if (createExclusive(path.join(dir, "tsconfig.json"), JSON.stringify(EDITOR_TSCONFIG, null, 2) + "\n")) written.push("tsconfig.json");
  if (ctx.options.from === undefined) fs.mkdirSync(path.join(dir, "workspace"), { recursive: true });
  out(`${paint.green("✓")} wrote ${written.join(", ")}${summary}`);
  err(`next: ${paint.bold("mcpbox validate")}, then ${paint.bold("mcpbox config claude-desktop --write")}`);
  return 0;
}

function alreadyThere(ctx: Context, file: string): McpboxError {
  return new McpboxError("failed", `${path.relative(ctx.cwd, file) || file} already exists`, { hint: "pass --force to overwrite it" });
}
