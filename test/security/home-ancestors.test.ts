/**
 * Boundary 10 (hrev): a home under a folder another user can rename entries in is refused by every command that uses
 * it, and the launcher keeps no compile cache there. dist/mcpbox's launcher enables V8's compile cache in
 * $MCPBOX_HOME/cache/compile and seeds it before any of src/home.ts runs, and checked only the home and its cache
 * folders, never what lies above them: `validate` (which never asks home.ts) ran with MCPBOX_HOME in a folder of uid
 * 4242, writing and reading compile entries there, and every command did before home.ts refused. That user can swap
 * the checked home for a folder of theirs between the check and Node's reads of the entries (a chunk loaded later
 * reads its entry then), and a forged entry (Node checks only the source's length and CRC-32, which anyone can copy
 * from the binary) is bytecode V8 runs as the user. The hostile fixtures: the home in a folder uid 4242 owns, and the
 * home reached through a link uid 4242 owns in its folder (the path as given is what the compile cache and every
 * later open go through; its resolved path has no foreign folder, so src/home.ts took it too).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpboxCommand } from "../helpers/gateway.ts";
import { chownTo, removeTree } from "../helpers/owner.ts";
import { tempDir } from "./_hostile.ts";

const OTHER = 4242;
const made: string[] = [];
afterAll(() => {
  for (const d of made) removeTree(d);
});

function scratch(prefix: string): string {
  const d = tempDir(prefix);
  made.push(d);
  return d;
}

function mcpbox(args: string[], home: string, cwd: string) {
  const config = path.join(cwd, "sandbox.config.json");
  fs.writeFileSync(config, JSON.stringify({ servers: { code: { builtin: "code-runner", languages: ["bash"] } } }));
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args, "-c", config], { cwd, encoding: "utf8", timeout: 60_000, env: { ...process.env, MCPBOX_HOME: home, NO_COLOR: "1" } });
  if (r.error) throw r.error;
  return r;
}
const validate = (home: string, cwd: string) => mcpbox(["validate"], home, cwd);
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Every file and folder under dir (relative), [] when it does not exist. */
function tree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

describe("a home that another user could swap", () => {
  it("gets no compile-cache entry written or read in it, and is refused (exit 3, naming the folder) by a command that uses it", () => {
    const dir = scratch("anc-owned");
    const theirs = path.join(dir, "theirs");
    fs.mkdirSync(theirs, { mode: 0o755 });
    chownTo(theirs, OTHER);
    const home = path.join(theirs, "home");
    const v = validate(home, dir);
    expect(v.status, v.stderr).toBe(0); // validate needs no home: it runs, without the cache
    expect(tree(path.join(home, "cache"))).toEqual([]);
    const r = mcpbox(["ps"], home, dir);
    expect(r.stderr).toContain(`error: $MCPBOX_HOME ${home} lies in ${theirs}, which uid ${OTHER} owns: they could replace it`);
    expect(r.stderr).toContain("hint: set MCPBOX_HOME (or audit.path) to a folder under folders of your own");
    expect(r.status).toBe(3);
    expect(tree(path.join(home, "cache"))).toEqual([]);
  });

  it("is the same through a link another user owns, though the folder it resolves to is the user's own", () => {
    const dir = scratch("anc-link");
    const mine = path.join(dir, "mine");
    fs.mkdirSync(path.join(mine, "home"), { recursive: true, mode: 0o700 });
    const theirs = path.join(dir, "theirs");
    fs.mkdirSync(theirs, { mode: 0o755 });
    fs.symlinkSync(mine, path.join(theirs, "link"));
    chownTo(path.join(theirs, "link"), OTHER);
    chownTo(theirs, OTHER);
    const home = path.join(theirs, "link", "home");
    const v = validate(home, dir);
    expect(v.status, v.stderr).toBe(0);
    expect(tree(path.join(mine, "home"))).toEqual([]);
    const r = mcpbox(["ps"], home, dir);
    expect(r.stderr).toMatch(new RegExp(`error: \\$MCPBOX_HOME ${esc(home)} lies in ${esc(theirs)}(/link)?, which uid ${OTHER} owns`));
    expect(r.status).toBe(3);
    expect(tree(path.join(mine, "home"))).toEqual([]);
  });

  it("still caches in a home in a sticky shared folder (/tmp's kind) and one under folders of the user's own", () => {
    const dir = scratch("anc-ok");
    const shared = path.join(dir, "shared");
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o1777);
    for (const home of [path.join(shared, "home"), path.join(dir, "own", "home")]) {
      const r = validate(home, dir);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(tree(path.join(home, "cache", "compile")).length).toBeGreaterThan(1);
    }
  });

  it("refuses a relative home (a `~/...` no shell expanded), which would lie in the repository a client runs it in", () => {
    const repo = scratch("anc-relative");
    fs.mkdirSync(path.join(repo, ".git"));
    // what the repository commits where such a home lands: folders as git makes them (0755)
    const planted = path.join(repo, "~", ".mcpbox", "cache", "compile");
    fs.mkdirSync(planted, { recursive: true, mode: 0o755 });
    fs.mkdirSync(path.join(repo, "~", ".mcpbox", "run"), { mode: 0o755 });
    const v = validate("~/.mcpbox", repo);
    expect(v.status, v.stderr).toBe(0);
    expect(tree(planted)).toEqual([]); // no compile-cache entry written, none read there
    for (const command of ["ps", "monitor"]) {
      const r = mcpbox([command], "~/.mcpbox", repo);
      expect(r.stderr).toContain(`error: $MCPBOX_HOME ~/.mcpbox is not an absolute path: it would lie in the working folder (${repo}), which may be a repository`);
      expect(r.stderr).toContain("(no shell expanded the ~)");
      expect(r.status).toBe(3);
    }
    expect(tree(path.join(repo, "~"))).toEqual([".mcpbox", ".mcpbox/cache", ".mcpbox/cache/compile", ".mcpbox/run"]);
  });
});
