/**
 * `mcpbox config cline --write` writes where each Cline reads: the VS Code extension's globalStorage file always, and
 * the Cline CLI's ~/.cline/data/settings/cline_mcp_settings.json once the CLI is installed (~/.cline exists);
 * `config vscode --write` writes VS Code Insiders' mcp.json too when Insiders is there. Every other client's CLI and
 * IDE share one file (checked in src/clients/targets.test.ts).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { mcpboxCommand } from "./helpers/gateway.ts";

let tmp: string;
let home: string;
let config: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-siblings-")));
  home = path.join(tmp, "home");
  fs.mkdirSync(home);
  config = path.join(tmp, "sandbox.config.json");
  fs.writeFileSync(config, JSON.stringify({ servers: { a: { image: "mcpbox-test/nothing:1" } } }));
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function configCline(client = "cline"): { code: number | null; stderr: string } {
  const { command, args } = mcpboxCommand();
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, NO_COLOR: "1" };
  delete env.XDG_CONFIG_HOME;
  const r = spawnSync(command, [...args, "config", client, "--write", "-c", config], { cwd: tmp, env, encoding: "utf8" });
  return { code: r.status, stderr: r.stderr };
}

const extension = () => path.join(home, ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json");
const cli = () => path.join(home, ".cline/data/settings/cline_mcp_settings.json");
const servers = (file: string) => Object.keys((JSON.parse(fs.readFileSync(file, "utf8")) as { mcpServers: object }).mcpServers);

it("writes the extension's file only while the Cline CLI is not installed", () => {
  const r = configCline();
  expect(r.code, r.stderr).toBe(0);
  expect(servers(extension())).toEqual(["mcpbox"]);
  expect(fs.existsSync(path.join(home, ".cline"))).toBe(false);
  expect(r.stderr).toContain(`created ${extension()}`);
});

it("also merges into the CLI's file once ~/.cline exists, keeping its other servers, with a backup", () => {
  fs.mkdirSync(path.dirname(cli()), { recursive: true });
  fs.writeFileSync(cli(), JSON.stringify({ mcpServers: { mine: { command: "x", args: [] } } }, null, 2));
  const r = configCline();
  expect(r.code, r.stderr).toBe(0);
  expect(servers(cli())).toEqual(["mine", "mcpbox"]);
  expect(r.stderr).toContain(`updated ${cli()} (mcpbox)`);
  expect(r.stderr).toContain("restart Cline CLI to load it");
  expect(r.stderr).toContain(`${extension()} already has the mcpbox gateway configuration; nothing changed`);
  expect(fs.readdirSync(path.dirname(cli())).filter((f) => f.includes(".mcpbox-backup-"))).toHaveLength(1);
});

it("writes the CLI's file when only its folder exists (installed, never configured)", () => {
  fs.rmSync(path.join(home, ".cline"), { recursive: true });
  fs.mkdirSync(path.join(home, ".cline"));
  const r = configCline();
  expect(r.code, r.stderr).toBe(0);
  expect(servers(cli())).toEqual(["mcpbox"]);
});

it("vscode --write updates VS Code Insiders' mcp.json too once its user folder exists", () => {
  const insiders = path.join(home, ".config/Code - Insiders/User");
  fs.mkdirSync(insiders, { recursive: true });
  const r = configCline("vscode");
  expect(r.code, r.stderr).toBe(0);
  for (const dir of [path.join(home, ".config/Code/User"), insiders]) {
    expect(Object.keys((JSON.parse(fs.readFileSync(path.join(dir, "mcp.json"), "utf8")) as { servers: object }).servers)).toEqual(["mcpbox"]);
  }
  expect(r.stderr).toContain("restart VS Code Insiders to load it");
});
