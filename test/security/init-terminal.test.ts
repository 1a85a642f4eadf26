/**
 * Boundary 11 for `mcpbox init` (hrev): a clone or an unpacked archive lies in a folder whoever made it named, and
 * init printed paths in it as they were: the project file `--from <client>` fell back to (its note, and the "from
 * <file>" of its summary), and the files it created under `init <dir>`. A folder name holding an escape sequence
 * reached the terminal raw: OSC 52 sets the clipboard on terminals that take it (kitty, WezTerm, iTerm2, foot,
 * Windows Terminal), OSC 0 the title. The hostile fixture: such a folder holding a project's `.cursor/mcp.json`, for
 * a user without a Cursor file of their own; nothing init prints may hold a control character, and it still names
 * the files (escaped).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpboxCommand } from "../helpers/gateway.ts";
import { tempDir } from "./_hostile.ts";

/** Every C0 control but \t and \n, DEL and every C1 control (as the UTF-8 text a terminal decodes). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const CLIPBOARD = "\x1b]52;c;ZWNobyBwd25lZA==\x07"; // "echo pwned" into the clipboard
const TITLE = "\x1b]0;PWNED\x07";

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

function init(args: string[], cwd: string, home: string) {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, "init", ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), XDG_CONFIG_HOME: path.join(home, ".config"), NO_COLOR: "1" },
  });
  if (r.error) throw r.error;
  return r;
}

describe("mcpbox init prints no path of a hostile folder raw", () => {
  it("--from <client> names the project file it fell back to, escaped", () => {
    const dir = tempDir("init-terminal");
    made.push(dir);
    const home = path.join(dir, "home");
    const repo = path.join(dir, `project${CLIPBOARD}`);
    fs.mkdirSync(path.join(repo, ".cursor"), { recursive: true });
    fs.writeFileSync(path.join(repo, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { ours: { command: "npx", args: ["-y", "@us/project-server"] } } }));
    const r = init(["--from", "cursor"], repo, home);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.status, r.stderr).toBe(0);
    const printed = `${r.stdout}${r.stderr}`;
    expect(printed).toContain("read the project file"); // the note is there
    expect(r.stdout).toMatch(/from .*project.*mcp\.json: 1 converted/); // and the summary names the file
    expect(RAW_CONTROL.test(printed), JSON.stringify(printed)).toBe(false);
    expect(fs.readFileSync(path.join(repo, "sandbox.config.ts"), "utf8")).toContain("@us/project-server");
  });

  it("init <dir> lists what it created in that folder, escaped", () => {
    const dir = tempDir("init-terminal-dir");
    made.push(dir);
    const r = init([`project${TITLE}`], dir, path.join(dir, "home"));
    expect(r.status, r.stderr).toBe(0);
    const printed = `${r.stdout}${r.stderr}`;
    expect(printed).toContain("sandbox.config.ts");
    expect(RAW_CONTROL.test(printed), JSON.stringify(printed)).toBe(false);
    expect(fs.existsSync(path.join(dir, `project${TITLE}`, "sandbox.config.ts"))).toBe(true);
  });
});
