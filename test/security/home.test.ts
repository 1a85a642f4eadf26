/**
 * Boundary 10: mcpbox's own files are trusted only when they are the user's. Against dist/mcpbox: a home (or a
 * folder in it, or an audit.path) that another user owns or others can write is refused with exit 3 before anything
 * is written there; a day file planted as a link is never followed; a chunk folder of an earlier build that another
 * user owns is refused. (Chunks run from the binary itself: what is planted where they were once unpacked, or at their
 * URLs' paths, is never run: test/binary-unpack.test.ts.)
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpboxCommand } from "../helpers/gateway.ts";
import { tempDir } from "./_hostile.ts";
import { chownTo, removeTree } from "../helpers/owner.ts";

const STACK_LINE = /^\s+at /m;
const made: string[] = [];
afterAll(() => {
  for (const d of made) removeTree(d); // folders of uid 4242 included
});

function scratch(prefix: string): string {
  const d = tempDir(prefix);
  made.push(d);
  return d;
}

function mcpbox(args: string[], home: string, cwd: string, env: Record<string, string> = {}) {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args], { cwd, encoding: "utf8", timeout: 120_000, env: { ...process.env, MCPBOX_HOME: home, NO_COLOR: "1", ...env } });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A folder owned by another user, uid 4242 (chowned by root, or through the engine by a user with Docker access). */
function foreignFolder(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  chownTo(dir, 4242);
  return dir;
}

/** A config whose one server is the code runner (bash only): `tools --call` makes one audited call. */
function runnerProject(dir: string, extra: Record<string, unknown> = {}): string {
  const config = path.join(dir, "sandbox.config.json");
  fs.writeFileSync(config, JSON.stringify({ servers: { code: { builtin: "code-runner", languages: ["bash"] } }, ...extra }));
  return config;
}

describe("an untrusted $MCPBOX_HOME", () => {
  it("refuses a home that group and others can write (exit 3, the folder, its mode and the fix), writing nothing in it", () => {
    const dir = scratch("home777");
    const home = path.join(dir, "home");
    fs.mkdirSync(home);
    fs.chmodSync(home, 0o777);
    const r = mcpbox(["tools", "-c", runnerProject(dir)], home, dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`error: $MCPBOX_HOME ${home} is writable by group and others (mode 0777)`);
    expect(r.stderr).toContain(`hint: chmod 700 ${home}`);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(fs.readdirSync(home)).toEqual([]);
  });

  it("refuses a home another user owns", () => {
    const dir = scratch("home4242");
    const home = foreignFolder(path.join(dir, "home"));
    const r = mcpbox(["validate", "-c", runnerProject(dir)], home, dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`error: \\$MCPBOX_HOME ${home} is owned by uid \\d+, not by you \\(uid \\d+\\)`));
    expect(r.stderr).toMatch(/hint: set MCPBOX_HOME .*to a folder of your own/);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  it("refuses an audit folder in the home, or an audit.path outside it, that others can write, before any call", () => {
    const dir = scratch("audit777");
    const home = path.join(dir, "home");
    fs.mkdirSync(path.join(home, "audit"), { recursive: true, mode: 0o700 });
    fs.chmodSync(path.join(home, "audit"), 0o757);
    const inHome = mcpbox(["tools", "-c", runnerProject(dir)], home, dir);
    expect(inHome.code).toBe(3);
    expect(inHome.stderr).toContain(`${path.join(home, "audit")} is writable by others (mode 0757)`);

    const outside = path.join(dir, "shared-audit");
    fs.mkdirSync(outside);
    fs.chmodSync(outside, 0o777);
    const r = mcpbox(["tools", "-c", runnerProject(dir, { audit: { path: outside } })], path.join(dir, "home2"), dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`error: audit.path ${outside} is writable by group and others (mode 0777)`);
  });
});

describe("planted links in mcpbox's folders", () => {
  it("never appends an audit line through a day file planted as a link to a victim", () => {
    const dir = scratch("auditlink");
    const home = path.join(dir, "home");
    const victim = path.join(dir, "victim.txt");
    fs.writeFileSync(victim, "precious\n");
    fs.mkdirSync(path.join(home, "audit"), { recursive: true, mode: 0o700 });
    for (const offset of [0, 1]) {
      const day = new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
      fs.symlinkSync(victim, path.join(home, "audit", `${day}.jsonl`)); // today's and, near midnight, tomorrow's
    }
    const r = mcpbox(["tools", "-c", runnerProject(dir), "--call", "code__run_code", JSON.stringify({ language: "bash", code: "echo ran" })], home, dir);
    expect(r.stdout + r.stderr).toContain("ran");
    expect(fs.readFileSync(victim, "utf8")).toBe("precious\n");
    expect(r.stderr).toMatch(/\.jsonl is a symbolic link; mcpbox does not write through links/);
  }, 120_000);
});

describe("the launcher's chunk cache", () => {
  it("refuses a chunk cache folder that another user owns", () => {
    if (process.env.MCPBOX_TEST_FROM_SOURCE) return; // the chunk cache is the launcher's: dist/mcpbox only
    const dir = scratch("chunkowner");
    const home = path.join(dir, "home");
    fs.mkdirSync(path.join(home, "cache"), { recursive: true, mode: 0o700 });
    foreignFolder(path.join(home, "cache", "bin"));
    const r = mcpbox(["--help"], home, dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${path.join(home, "cache", "bin")} is owned by uid 4242, not by you (uid ${process.getuid!()})`);
  });
});

