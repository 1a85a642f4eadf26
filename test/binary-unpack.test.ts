/**
 * dist/mcpbox's unpacked chunks ($MCPBOX_HOME/cache/bin/<build>/, scripts/sea/launcher.cjs): what is missing or not a
 * regular file under a chunk's name is written again before the program loads, and a chunk changed in the cache is
 * never run (its embedded original runs and is written back).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DIST = path.join(path.resolve(import.meta.dirname, ".."), "dist", "mcpbox");
let tmp: string;

function run(home: string, args = ["--help"]) {
  const r = spawnSync(DIST, args, { cwd: tmp, env: { PATH: "/nonexistent", HOME: tmp, MCPBOX_HOME: home, TMPDIR: tmp, NO_COLOR: "1" }, encoding: "utf8", timeout: 60_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A home whose cache holds one unpacked build; returns that build's folder. */
function unpacked(name: string): { home: string; build: string } {
  const home = path.join(tmp, name);
  expect(run(home).code).toBe(0);
  const root = path.join(home, "cache", "bin");
  const [hash] = fs.readdirSync(root).filter((n) => !n.startsWith("."));
  return { home, build: path.join(root, hash!) };
}

const aChunk = (build: string) => path.join(build, "chunks", fs.readdirSync(path.join(build, "chunks")).sort()[0]!);

beforeAll(() => {
  if (!fs.existsSync(DIST)) throw new Error("dist/mcpbox does not exist: run `npm run build` first");
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-unpack-")));
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("unpacked chunks", () => {
  it("a chunk replaced by a dangling link is written again as a regular file", () => {
    const { home, build } = unpacked("link");
    const chunk = aChunk(build);
    const original = fs.readFileSync(chunk);
    fs.rmSync(chunk);
    fs.symlinkSync(path.join(tmp, "nowhere.mjs"), chunk);
    const r = run(home);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(fs.lstatSync(chunk).isFile()).toBe(true);
    expect(fs.readFileSync(chunk).equals(original)).toBe(true);
  });

  it("the entry chunk deleted is written again", () => {
    const { home, build } = unpacked("entry");
    const entry = path.join(build, "main.mjs");
    const original = fs.readFileSync(entry);
    fs.rmSync(entry);
    const r = run(home);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(fs.readFileSync(entry).equals(original)).toBe(true);
  });

  it("a changed entry chunk is never run: the embedded one runs and is written back", () => {
    const { home, build } = unpacked("changed");
    const entry = path.join(build, "main.mjs");
    const original = fs.readFileSync(entry);
    fs.writeFileSync(entry, `process.stdout.write("PLANTED\\n");\n${original}`);
    const r = run(home);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("PLANTED");
    expect(r.stdout).toMatch(/serve/);
    expect(fs.readFileSync(entry).equals(original)).toBe(true);
  });

  // the check is in the module loader's hooks: the chunks the entry imports statically and the ones a command loads
  // later by import() go through it, not the entry alone
  it("changed chunks are never run, whether the entry imports them statically or a command loads them later", () => {
    const { home, build } = unpacked("chunks");
    const entry = fs.readFileSync(path.join(build, "main.mjs"), "utf8");
    const staticChunks = [...entry.matchAll(/from"\.\/(chunks\/[^"]+)"/g)].map((m) => path.join(build, m[1]!));
    expect(staticChunks.length).toBeGreaterThan(0);
    const all = fs.readdirSync(path.join(build, "chunks")).map((f) => path.join(build, "chunks", f));
    const originals = new Map(all.map((f) => [f, fs.readFileSync(f)]));
    for (const f of all) fs.writeFileSync(f, `process.stdout.write("PLANTED\\n");\n${originals.get(f)}`);
    fs.mkdirSync(path.join(tmp, "project"), { recursive: true });
    fs.writeFileSync(path.join(tmp, "project", "sandbox.config.json"), JSON.stringify({ servers: { a: { image: "alpine:3" } } }));
    const r = spawnSync(DIST, ["validate"], { cwd: path.join(tmp, "project"), env: { PATH: "/nonexistent", HOME: tmp, MCPBOX_HOME: home, TMPDIR: tmp, NO_COLOR: "1" }, encoding: "utf8", timeout: 60_000 });
    expect(r.stdout + r.stderr).not.toContain("PLANTED");
    expect(r.stdout).toMatch(/is valid/);
    expect(r.status).toBe(0);
    for (const f of staticChunks) expect(fs.readFileSync(f).equals(originals.get(f)!)).toBe(true);
  });
});
