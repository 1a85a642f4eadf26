/**
 * A repository never gets a write through a link it planted (SECURITY.md, "who may be hostile"; hrev). `mcpbox config
 * <client> --write --file .cursor/mcp.json` in a cloned project merged its gateway entry (`mcpbox serve -c
 * <the project's config>`) into wherever that file's link led, and said it had updated the project's file: a
 * repository whose `.cursor/mcp.json` is a link to `../../.cursor/mcp.json` (or whose `.cursor` folder is a link to
 * the user's `~/.cursor`) had the user's global Cursor configuration start the repository's config, its code and its
 * servers, in every workspace from then on. The hostile fixtures: a repository (a `.git` folder) holding both kinds of
 * link, to a "home" of a temp folder; the victim file must stay as it was, and no file be made there.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpboxCommand } from "../helpers/gateway.ts";
import { tempDir } from "./_hostile.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

const GLOBAL = `${JSON.stringify({ mcpServers: { mine: { command: "my-own-server" } } }, null, 2)}\n`;

/** A temp folder holding home/ (the user's, with a global Cursor file) and home/src/repo (a cloned project). */
function world(): { home: string; repo: string; victim: string } {
  const root = tempDir("client-link");
  made.push(root);
  const home = path.join(root, "home");
  const repo = path.join(home, "src", "repo");
  fs.mkdirSync(path.join(home, ".cursor"), { recursive: true });
  const victim = path.join(home, ".cursor", "mcp.json");
  fs.writeFileSync(victim, GLOBAL);
  fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
  fs.writeFileSync(path.join(repo, "sandbox.config.json"), JSON.stringify({ servers: { code: { builtin: "code-runner", languages: ["bash"] } } }));
  return { home, repo, victim };
}

function configWrite(home: string, repo: string, file: string) {
  const { command, args } = mcpboxCommand();
  const r = spawnSync(command, [...args, "config", "cursor", "--write", "--file", file], {
    cwd: repo,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), NO_COLOR: "1" },
  });
  if (r.error) throw r.error;
  return r;
}

describe("mcpbox config --write never writes through a repository's link", () => {
  it("refuses a project file that is a link to the user's global client file, which stays as it was", () => {
    const { home, repo, victim } = world();
    fs.mkdirSync(path.join(repo, ".cursor"));
    fs.symlinkSync("../../../.cursor/mcp.json", path.join(repo, ".cursor", "mcp.json"));
    expect(fs.realpathSync(path.join(repo, ".cursor", "mcp.json"))).toBe(fs.realpathSync(victim));
    const r = configWrite(home, repo, ".cursor/mcp.json");
    expect(fs.readFileSync(victim, "utf8")).toBe(GLOBAL);
    expect(fs.readdirSync(path.dirname(victim))).toEqual(["mcp.json"]); // no backup either
    expect(r.stderr).toContain(`refused: ${path.join(repo, ".cursor", "mcp.json")} lies in the repository ${repo} but leads (through a link) to ${fs.realpathSync(victim)}, outside it`);
    expect(r.status).toBe(1);
  });

  it("refuses a project folder that is a link to the user's client folder, making no file there", () => {
    const { home, repo, victim } = world();
    fs.rmSync(victim);
    fs.symlinkSync("../../.cursor", path.join(repo, ".cursor"));
    const r = configWrite(home, repo, ".cursor/mcp.json");
    expect(fs.readdirSync(path.dirname(victim))).toEqual([]);
    expect(r.stderr).toContain("outside it");
    expect(r.status).toBe(1);
  });

  it("still writes the project's own file, and a link that stays inside the repository", () => {
    const { home, repo, victim } = world();
    fs.mkdirSync(path.join(repo, "shared"));
    fs.symlinkSync("shared", path.join(repo, ".cursor"));
    const r = configWrite(home, repo, ".cursor/mcp.json");
    expect(r.status).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(repo, "shared", "mcp.json"), "utf8")).mcpServers.mcpbox.args).toContain("serve");
    expect(fs.readFileSync(victim, "utf8")).toBe(GLOBAL);
  });
});
