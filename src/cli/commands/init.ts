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
import { terminalLine } from "../../text/terminal.ts";
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
    const converted = await convertClientConfig(ctx.options.from, { cwd: ctx.cwd, configFile: path.join(dir, "sandbox.config.ts") });
    text = `/// <reference path="./${TYPES_PATH}" />\n${converted.text}`;
    // paths lie in folders a cloned repository or an unpacked archive named: shown terminal-safe, as validate's (hrev)
    summary = ` from ${terminalLine(converted.source)}: ${converted.servers} converted, ${converted.skipped} kept as comments`;
    for (const note of converted.notes) err(`${paint.yellow("note:")} ${terminalLine(note)}`);
  }
  fs.mkdirSync(dir, { recursive: true });
  const typesDir = makeFolders(dir, path.dirname(TYPES_PATH));
  // the example server mounts ./workspace: a link a repository planted there (-> ~/Documents) would be mounted in its
  // place, and a dangling one made mkdir fail after the config was written (hrev); made (or refused) first
  const workspace = ctx.options.from === undefined ? path.join(dir, "workspace") : undefined;
  const newWorkspace = workspace !== undefined && !occupied(workspace);
  if (workspace) makeFolders(dir, "workspace");
  const configFile = path.join(dir, "sandbox.config.ts");
  if (existing && existing !== configFile) {
    if (fs.lstatSync(existing).isDirectory()) {
      throw new McpboxError("failed", `${path.relative(ctx.cwd, existing) || existing} is a folder; init replaces only a file`, {
        hint: `remove ${existing} yourself, or run init in another folder`,
      });
    }
    fs.rmSync(existing); // a link is removed, not its target
  }
  // new files are created exclusively; with --force a new file is renamed over the old one (or over a link)
  if (force) replaceFile(configFile, text);
  else if (!createExclusive(configFile, text)) throw alreadyThere(ctx, configFile);
  replaceFile(path.join(typesDir, path.basename(TYPES_PATH)), readAsset("templates/init/mcpbox.d.ts"));
  const shown = (file: string) => terminalLine(path.relative(ctx.cwd, file) || path.basename(file));
  const created: [string, string][] = [
    [shown(configFile), summary ? `your servers${summary}` : "the config: one example server to edit"],
    [shown(path.join(dir, TYPES_PATH)), "types for your editor and tsc"],
  ];
  if (createExclusive(path.join(dir, "tsconfig.json"), JSON.stringify(EDITOR_TSCONFIG, null, 2) + "\n")) {
    created.push([shown(path.join(dir, "tsconfig.json")), "lets the editor check the config"]);
  }
  if (workspace && newWorkspace) created.push([shown(workspace) + path.sep, "the only folder the example server sees (read-only)"]);
  const width = Math.max(...created.map(([f]) => f.length));
  const lines = created.map(([f, what]) => `  ${f.padEnd(width)}  ${what}`);
  out(`${paint.green("✓")} ${existing ? "wrote" : "created"}:\n${lines.join("\n")}`);
  const steps = ["mcpbox validate", "mcpbox build", "mcpbox tools", "mcpbox config claude-desktop --write"];
  err(`next: ${steps.map((s) => paint.bold(s)).join(", then ")}`);
  return 0;
}

function alreadyThere(ctx: Context, file: string): McpboxError {
  return new McpboxError("failed", `${path.relative(ctx.cwd, file) || file} already exists`, { hint: "pass --force to overwrite it" });
}
