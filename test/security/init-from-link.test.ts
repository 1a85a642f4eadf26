/**
 * A repository never gets a read through a link it planted (boundary 20, as `config --write`; hrev). `mcpbox init
 * --from .cursor/mcp.json` in a cloned project whose `.cursor/mcp.json` is a link to `../../../.cursor/mcp.json` (or
 * whose `.cursor` folder is a link to the user's `~/.cursor`) read the user's global Cursor file and wrote its
 * servers, with their arguments and paths, into the repository's sandbox.config.ts as the project's config (to be
 * committed, pushed, or served in that project); `--from vscode` for a user with no VS Code file of their own read
 * the project's `.vscode/mcp.json`, a link to another client's global file, the same way. The hostile fixtures: a
 * repository (a `.git` folder) holding each kind of link into a "home" of a temp folder; init must refuse (exit 1,
 * naming the link, where it leads and the file to pass instead) and make nothing in the repository.
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

const GLOBAL = `${JSON.stringify({ mcpServers: { mine: { command: "npx", args: ["-y", "@me/private-server", "--workspace", "/home/me/secret-project"] } } }, null, 2)}\n`;

/** A temp folder holding home/ (the user's, with a global Cursor file) and home/src/repo (a cloned project). */
function world(): { home: string; repo: string; victim: string } {
  const root = tempDir("init-from-link");
  made.push(root);
  const home = path.join(root, "home");
  const repo = path.join(home, "src", "repo");
  fs.mkdirSync(path.join(home, ".cursor"), { recursive: true });
  const victim = path.join(home, ".cursor", "mcp.json");
  fs.writeFileSync(victim, GLOBAL);
  fs.mkdirSync(path.join(repo, ".git"), { recursive: true });
  return { home, repo, victim };
}

function init(home: string, repo: string, from: string) {
  const { command, args } = mcpboxCommand();
  const r = spawnSync(command, [...args, "init", "--from", from], {
    cwd: repo,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), XDG_CONFIG_HOME: path.join(home, ".config"), NO_COLOR: "1" },
  });
  if (r.error) throw r.error;
  return r;
}

function expectRefused(r: ReturnType<typeof init>, repo: string, link: string, victim: string): void {
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).toContain(
    `refused: ${link} lies in the repository ${repo} but leads (through a link) to ${fs.realpathSync(victim)}, outside it; a link a repository holds is not read through`,
  );
  expect(r.stderr).toContain(`hint: if ${fs.realpathSync(victim)} is the file you mean, pass it itself: mcpbox init --from ${fs.realpathSync(victim)}`);
  expect(r.status).toBe(1);
  expect(fs.existsSync(path.join(repo, "sandbox.config.ts"))).toBe(false);
  expect(fs.existsSync(path.join(repo, ".mcpbox"))).toBe(false);
}

describe("mcpbox init --from never reads through a repository's link", () => {
  it("refuses a project file that is a link to the user's global client file", () => {
    const { home, repo, victim } = world();
    fs.mkdirSync(path.join(repo, ".cursor"));
    fs.symlinkSync("../../../.cursor/mcp.json", path.join(repo, ".cursor", "mcp.json"));
    expect(fs.realpathSync(path.join(repo, ".cursor", "mcp.json"))).toBe(fs.realpathSync(victim));
    expectRefused(init(home, repo, ".cursor/mcp.json"), repo, path.join(repo, ".cursor", "mcp.json"), victim);
    expect(fs.readFileSync(victim, "utf8")).toBe(GLOBAL);
  });

  it("refuses a project folder that is a link to the user's client folder", () => {
    const { home, repo, victim } = world();
    fs.symlinkSync("../../.cursor", path.join(repo, ".cursor"));
    expectRefused(init(home, repo, ".cursor/mcp.json"), repo, path.join(repo, ".cursor", "mcp.json"), victim);
  });

  it("refuses the project file a client name falls back to when it is such a link (--from vscode, no file of the user's)", () => {
    const { home, repo, victim } = world();
    fs.mkdirSync(path.join(repo, ".vscode"));
    fs.symlinkSync("../../../.cursor/mcp.json", path.join(repo, ".vscode", "mcp.json"));
    expectRefused(init(home, repo, "vscode"), repo, path.join(repo, ".vscode", "mcp.json"), victim);
  });

  it("still converts the project's own file, a link inside the repository, and the file the hint names", () => {
    const { home, repo, victim } = world();
    fs.mkdirSync(path.join(repo, "shared"));
    fs.writeFileSync(path.join(repo, "shared", "mcp.json"), JSON.stringify({ mcpServers: { ours: { command: "npx", args: ["-y", "@us/project-server"] } } }));
    fs.symlinkSync("shared", path.join(repo, ".cursor"));
    const inside = init(home, repo, ".cursor/mcp.json");
    expect(inside.stderr).not.toMatch(/^\s+at /m);
    expect(inside.status).toBe(0);
    expect(fs.readFileSync(path.join(repo, "sandbox.config.ts"), "utf8")).toContain("@us/project-server");

    const other = path.join(home, "src", "other");
    fs.mkdirSync(other);
    const named = init(home, other, victim);
    expect(named.status).toBe(0);
    expect(fs.readFileSync(path.join(other, "sandbox.config.ts"), "utf8")).toContain("@me/private-server");
  });
});
