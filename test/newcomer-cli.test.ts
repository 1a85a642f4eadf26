/**
 * The small things a newcomer reads first, through the real binary: every command's --help lists -c/--config;
 * `validate` reports a server's policy errors beside its missing source; `tools --call` with bad arguments names
 * its positional JSON form; `init` lists what it created and says to validate, build and list the tools next.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpboxCommand } from "./helpers/gateway.ts";

const COMMANDS = ["init", "validate", "build", "serve", "tools", "config", "monitor", "ps", "doctor", "schema"];
let tmp: string;

beforeAll(() => (tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-newcomer-")))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function mcpbox(args: string[], cwd = tmp) {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", MCPBOX_HOME: path.join(tmp, "home") } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function folder(name: string, config?: unknown): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  if (config) fs.writeFileSync(path.join(dir, "sandbox.config.json"), JSON.stringify(config));
  return dir;
}

describe("a newcomer's first commands", () => {
  it("every command's --help lists -c, --config", () => {
    for (const c of COMMANDS) expect(mcpbox([c, "--help"]).stdout, c).toMatch(/^\s+-c, --config <path>\s+config file/m);
  });

  it("validate shows a server's network and user errors beside its missing package, exit 1", () => {
    const dir = folder("no-package", { servers: { a: { template: "node", network: "host", user: "0:0" } } });
    const r = mcpbox(["validate"], dir);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('servers.a.package: is required with template "node"');
    expect(r.stdout + r.stderr).toContain("servers.a.network: network \"host\"");
    expect(r.stdout + r.stderr).toContain("servers.a.user: runs as root");
    expect(r.stdout + r.stderr).toContain("3 errors");
  });

  it("tools --call with arguments that are not a JSON object shows the positional form, exit 2, once", () => {
    const dir = folder("call", { servers: { a: { image: "mcpbox-test/none:1" } } });
    const r = mcpbox(["tools", "--call", "a__echo", "--args", "[1]"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the arguments of --call must be a JSON object");
    expect(r.stderr).toContain(`mcpbox tools --call files__read_text_file '{"path": "/data/a.txt"}'`);
    expect(r.stderr.match(/must be a JSON object/g)).toHaveLength(1);
  });

  it("init lists what it created and says to validate, build and list the tools next", () => {
    const dir = folder("init");
    const r = mcpbox(["init"], dir);
    expect(r.code, r.stderr).toBe(0);
    for (const f of ["sandbox.config.ts", ".mcpbox/types/mcpbox.d.ts", "tsconfig.json", "workspace/"]) {
      expect(r.stdout).toMatch(new RegExp(`^  ${f.replace(/[./]/g, "\\$&")}\\s+\\S`, "m"));
    }
    expect(r.stderr).toMatch(/next: mcpbox validate, then mcpbox build, then mcpbox tools, then mcpbox config claude-desktop --write/);
  });
});
