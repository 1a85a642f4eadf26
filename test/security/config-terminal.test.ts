/**
 * Boundary 11 for what a repository controls (hrev): `mcpbox validate` in a cloned project printed the config's own
 * unknown keys inside its problems as they were, so a key holding an escape sequence reached the terminal raw: OSC 52
 * sets the clipboard on terminals that take it (kitty, WezTerm, iTerm2, foot, Windows Terminal), OSC 0 the title, a
 * CSI clears or moves. The hostile fixture: a sandbox.config.json whose unknown keys (at the top, in a server) and a
 * key of a record are such sequences; nothing validate prints may hold a control character, and the problems still
 * name the keys (escaped).
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

describe("a repository's config reaches no terminal raw", () => {
  it("validate names hostile keys with no control character in what it prints", () => {
    const dir = tempDir("config-terminal");
    made.push(dir);
    const config = {
      [TITLE]: 1,
      servers: {
        ok: { builtin: "code-runner", languages: ["bash"], [`x${CLIPBOARD}`]: 1 },
        [`evil\u009b2J`]: { image: "alpine:3" },
      },
    };
    fs.writeFileSync(path.join(dir, "sandbox.config.json"), JSON.stringify(config));
    const { command, args } = mcpboxCommand();
    const r = spawnSync(command, [...args, "validate"], { cwd: dir, encoding: "utf8", timeout: 60_000, env: { ...process.env, MCPBOX_HOME: path.join(dir, ".mcpbox"), NO_COLOR: "1" } });
    if (r.error) throw r.error;
    expect(r.status).toBe(1);
    const printed = `${r.stdout}${r.stderr}`;
    expect(RAW_CONTROL.test(printed), JSON.stringify(printed)).toBe(false);
    expect(printed).toContain("servers.ok.x: unknown key"); // the key is named, its sequence dropped
    expect(printed).toContain("U+001B"); // and the control character problem says what it held
  });

  it("validate's verdict names a config in a folder the repository named with escapes, escaped", () => {
    const dir = tempDir("config-terminal-path");
    made.push(dir);
    const folder = path.join(dir, `project${TITLE}`); // a clone is named by whoever made the repository or archive
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, "sandbox.config.json"), JSON.stringify({ servers: { ok: { image: "alpine:3" } } }));
    const { command, args } = mcpboxCommand();
    const r = spawnSync(command, [...args, "validate", "-c", path.join(`project${TITLE}`, "sandbox.config.json")], { cwd: dir, encoding: "utf8", timeout: 60_000, env: { ...process.env, MCPBOX_HOME: path.join(dir, ".mcpbox"), NO_COLOR: "1" } });
    if (r.error) throw r.error;
    expect(r.status, r.stderr).toBe(0);
    const printed = `${r.stdout}${r.stderr}`;
    expect(printed).toContain("is valid");
    expect(RAW_CONTROL.test(printed), JSON.stringify(printed)).toBe(false);
  });
});
