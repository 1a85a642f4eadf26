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
  const existing = CONFIG_NAMES.map((n) => path.join(dir, n)).find((f) => fs.existsSync(f));
  if (existing && !force) {
    throw new McpboxError("failed", `${path.relative(ctx.cwd, existing) || existing} already exists`, {
      hint: "pass --force to overwrite it",
    });
  }
  let text = readAsset("templates/init/sandbox.config.ts");
  let summary = "";
  if (typeof ctx.options.from === "string") {
    const { convertClientConfig } = await import("../../clients/import/index.ts");
    const converted = await convertClientConfig(ctx.options.from, { cwd: ctx.cwd });
    text = `/// <reference path="./${TYPES_PATH}" />\n${converted.text}`;
    summary = ` from ${converted.source}: ${converted.servers} server(s) converted, ${converted.skipped} kept as comments`;
  }
  fs.mkdirSync(path.join(dir, path.dirname(TYPES_PATH)), { recursive: true });
  const configFile = path.join(dir, "sandbox.config.ts");
  if (existing && existing !== configFile) fs.rmSync(existing);
  fs.writeFileSync(configFile, text);
  fs.writeFileSync(path.join(dir, TYPES_PATH), readAsset("templates/init/mcpbox.d.ts"));
  const written = [path.relative(ctx.cwd, configFile) || "sandbox.config.ts", TYPES_PATH];
  const tsconfig = path.join(dir, "tsconfig.json");
  if (!fs.existsSync(tsconfig)) {
    fs.writeFileSync(tsconfig, JSON.stringify(EDITOR_TSCONFIG, null, 2) + "\n");
    written.push("tsconfig.json");
  }
  if (ctx.options.from === undefined) fs.mkdirSync(path.join(dir, "workspace"), { recursive: true });
  out(`${paint.green("✓")} wrote ${written.join(", ")}${summary}`);
  err(`next: ${paint.bold("mcpbox validate")}, then ${paint.bold("mcpbox config claude-desktop --write")}`);
  return 0;
}
