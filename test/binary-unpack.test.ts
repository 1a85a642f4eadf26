/**
 * dist/mcpbox runs its chunks from the binary itself (scripts/sea/launcher.cjs): a fresh home gets no chunk files,
 * nothing planted on disk is ever run as a chunk (where earlier builds unpacked them, nor at the very path of a
 * chunk's URL), and the compile cache embedded at build time is what a fresh home starts with: every entry accepted
 * by V8, none compiled again. A compile-cache entry made for other code under a chunk's URL is rejected; a cache
 * folder of another user is refused; old entries of other code are pruned at a build's first start in a home.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chownTo, removeTree } from "./helpers/owner.ts";
// @ts-expect-error plain JavaScript build scripts
import { EXEC_ARGV } from "../scripts/sea/exec-argv.mjs";

const REPO = path.resolve(import.meta.dirname, "..");
const DIST = path.join(REPO, "dist", "mcpbox");
const NODE = path.join(REPO, "node_modules", ".bin", "node");
let tmp: string;
let manifest: { hash: string; entry: string; files: string[]; compile?: { tag: string; entries: Record<string, string> } };

function run(home: string, args = ["--help"], extra: Record<string, string> = {}) {
  const r = spawnSync(DIST, args, {
    cwd: path.join(tmp, "project"),
    env: { PATH: "/nonexistent", HOME: tmp, MCPBOX_HOME: home, TMPDIR: path.join(tmp, "tmpdir"), NO_COLOR: "1", ...extra },
    encoding: "utf8",
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Node's own account of its compile cache (NODE_DEBUG_NATIVE=COMPILE_CACHE), one line per event. */
function cacheLog(home: string, args: string[]) {
  const r = run(home, args, { NODE_DEBUG_NATIVE: "COMPILE_CACHE" });
  const lines = r.stderr.split("\n").filter((l) => l.startsWith("[compile cache]"));
  const of = (what: RegExp) => lines.filter((l) => what.test(l));
  return { ...r, accepted: of(/was accepted/), missed: of(/was not initialized|was rejected|mismatch|failed/), written: of(/^\[compile cache\] writing cache/) };
}

/** The manifest the build embedded (plain JSON in the binary, beginning with the build's hash). */
function readManifest() {
  const hash = fs.readFileSync(path.join(REPO, "dist", ".mcpbox.hash"), "utf8").split(" ")[0]!;
  const bin = fs.readFileSync(DIST);
  const at = bin.indexOf(`{"hash":"${hash}"`);
  expect(at).toBeGreaterThanOrEqual(0);
  let depth = 0;
  let end = at;
  for (; end < bin.length; end++) {
    if (bin[end] === 0x7b) depth++;
    else if (bin[end] === 0x7d && --depth === 0) break;
  }
  return JSON.parse(bin.subarray(at, end + 1).toString("utf8"));
}

const payload = (marker: string) => `import __fs from "node:fs"; __fs.appendFileSync(${JSON.stringify(marker)}, "ran\\n");\n`;

/** Every file under dir, relative to it. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => !e.isDirectory()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

beforeAll(() => {
  if (!fs.existsSync(DIST)) throw new Error("dist/mcpbox does not exist: run `npm run build` first");
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-unpack-")));
  fs.mkdirSync(path.join(tmp, "tmpdir"));
  fs.mkdirSync(path.join(tmp, "project"));
  fs.writeFileSync(path.join(tmp, "project", "sandbox.config.json"), JSON.stringify({ servers: { a: { image: "alpine:3" } } }));
  manifest = readManifest();
});

afterAll(() => removeTree(tmp));

describe("chunks run from the binary", () => {
  it("a fresh home gets no chunk file, only compile-cache entries, and nothing goes to the temp folder", () => {
    const home = path.join(tmp, "fresh");
    const r = run(home, ["validate"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/is valid/);
    expect(fs.existsSync(path.join(home, "cache", "bin"))).toBe(false);
    const files = filesUnder(home);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(f).toMatch(/^cache\/compile\/v\d+\.\d+\.\d+-[a-z0-9]+-[0-9a-f]+-\d+\/[0-9a-f]+$/);
    expect(fs.readdirSync(path.join(tmp, "tmpdir"))).toEqual([]);
  });

  it("chunks planted where earlier builds unpacked them (cache/bin/<this build>) are never run", () => {
    const home = path.join(tmp, "planted");
    const marker = path.join(tmp, "planted-ran");
    const build = path.join(home, "cache", "bin", manifest.hash);
    for (const f of manifest.files) {
      fs.mkdirSync(path.dirname(path.join(build, f)), { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(build, f), payload(marker));
    }
    fs.chmodSync(home, 0o700);
    fs.chmodSync(path.join(home, "cache"), 0o700);
    for (const args of [["--help"], ["validate"], ["schema"]]) {
      const r = run(home, args);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(fs.existsSync(marker)).toBe(false);
  });

  // the URL each chunk runs under names a path (file:///mcpbox/<build>/...); the load hook never reads it
  it("files at the very path of the chunks' URLs are never run", (ctx) => {
    const virtual = "/mcpbox";
    if (fs.existsSync(virtual)) return ctx.skip(); // someone else's: not touched
    try {
      fs.mkdirSync(virtual);
    } catch {
      return ctx.skip(); // not root: only root could plant there anyway
    }
    try {
      const marker = path.join(tmp, "virtual-ran");
      for (const f of manifest.files) {
        const p = path.join(virtual, manifest.hash, f);
        fs.mkdirSync(path.dirname(p), { recursive: true });
        fs.writeFileSync(p, payload(marker));
      }
      const r = run(path.join(tmp, "virtual-home"), ["validate"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/is valid/);
      expect(fs.existsSync(marker)).toBe(false);
    } finally {
      fs.rmSync(virtual, { recursive: true, force: true });
    }
  });
});

describe("the compile cache made at build time", () => {
  it("is embedded for every chunk", () => {
    const chunks = manifest.files.filter((f) => f.endsWith(".mjs"));
    expect(manifest.compile).toBeDefined();
    expect(Object.keys(manifest.compile!.entries).sort()).toEqual(chunks.sort());
  });

  it("is accepted by V8 on a fresh home: no chunk compiled from scratch, none written back", () => {
    for (const args of [["--help"], ["validate"]]) {
      const home = path.join(tmp, `accepted-${args[0]!.replace(/\W/g, "")}`);
      const log = cacheLog(home, args);
      expect(log.code, log.stderr).toBe(0);
      expect(log.accepted.length).toBeGreaterThan(5);
      expect(log.missed.filter((l) => l.includes("file:///mcpbox/"))).toEqual([]);
      expect(log.written).toEqual([]);
    }
  });

  it("an entry deleted from the cache is written again before its chunk loads", () => {
    const home = path.join(tmp, "deleted");
    expect(run(home).code).toBe(0);
    const folder = path.join(home, "cache", "compile", `${manifest.compile!.tag}-${process.getuid!()}`);
    const entry = path.join(folder, manifest.compile!.entries[manifest.entry]!);
    const original = fs.readFileSync(entry);
    fs.rmSync(entry);
    const log = cacheLog(home, ["--help"]);
    expect(log.code).toBe(0);
    expect(log.missed.filter((l) => l.includes("file:///mcpbox/"))).toEqual([]);
    expect(fs.readFileSync(entry).equals(original)).toBe(true);
  });

  // an entry is V8 code: one for other code under a chunk's URL must not run in its place. Made here with the same
  // Node and V8 flags as the binary (EXEC_ARGV: so its folder, version and flags hash match): Node's check of the
  // source it was made from rejects it, the chunk is compiled from the embedded source and its entry replaced
  it("an entry made for other code under a chunk's URL is rejected and never runs", () => {
    const home = path.join(tmp, "forged");
    const marker = path.join(tmp, "forged-ran");
    fs.mkdirSync(path.join(home, "cache", "compile"), { recursive: true, mode: 0o700 });
    const url = `file:///mcpbox/${manifest.hash}/${manifest.entry}`;
    const forge = [
      'const mod = require("node:module");',
      `const url = ${JSON.stringify(url)}, source = ${JSON.stringify(payload(marker))};`,
      'mod.registerHooks({ resolve: (s, c, n) => (s === url ? { url, format: "module", shortCircuit: true } : n(s, c)), load: (u, c, n) => (u === url ? { format: "module", source, shortCircuit: true } : n(u, c)) });',
      `mod.enableCompileCache(${JSON.stringify(path.join(home, "cache", "compile"))});`,
      "import(url);",
    ].join("\n");
    const made = spawnSync(NODE, [...(EXEC_ARGV as string[]), "-e", forge], { encoding: "utf8", env: { PATH: process.env.PATH } });
    expect(made.status, made.stderr).toBe(0);
    expect(fs.readFileSync(marker, "utf8")).toBe("ran\n"); // the forged entry is real: it ran where it was made
    fs.rmSync(marker);
    const entry = path.join(home, "cache", "compile", `${manifest.compile!.tag}-${process.getuid!()}`, manifest.compile!.entries[manifest.entry]!);
    const forged = fs.readFileSync(entry);

    const log = cacheLog(home, ["validate"]);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toMatch(/is valid/);
    expect(log.missed.some((l) => l.includes(url))).toBe(true);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readFileSync(entry).equals(forged)).toBe(false); // Node wrote the real one at exit
    expect(run(home, ["validate"]).code).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("refuses a compile-cache folder that another user owns", () => {
    const home = path.join(tmp, "foreign");
    fs.mkdirSync(path.join(home, "cache", "compile"), { recursive: true, mode: 0o700 });
    chownTo(path.join(home, "cache", "compile"), 4242);
    const r = run(home);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${path.join(home, "cache", "compile")} is owned by uid 4242, not by you (uid ${process.getuid!()})`);
  });
});

describe("the chunk folders of earlier builds ($MCPBOX_HOME/cache/bin)", () => {
  it("are removed after 30 days unused at this build's first start, the recent ones kept; cache/bin goes once empty", () => {
    const home = path.join(tmp, "prune");
    const bin = path.join(home, "cache", "bin");
    const old = path.join(bin, "0123456789abcdef");
    const recent = path.join(bin, "fedcba9876543210");
    for (const d of [old, recent]) fs.mkdirSync(path.join(d, "chunks"), { recursive: true, mode: 0o700 });
    for (const d of [home, path.join(home, "cache"), bin]) fs.chmodSync(d, 0o700);
    const monthAgo = new Date(Date.now() - 31 * 86_400_000);
    fs.utimesSync(old, monthAgo, monthAgo);
    expect(run(home).code).toBe(0);
    expect(fs.readdirSync(bin)).toEqual(["fedcba9876543210"]);
    fs.utimesSync(recent, monthAgo, monthAgo);
    expect(run(home).code).toBe(0); // not this build's first start here: no housekeeping
    expect(fs.existsSync(recent)).toBe(true);
    fs.rmSync(path.join(home, "cache", "compile"), { recursive: true });
    expect(run(home).code).toBe(0);
    expect(fs.existsSync(bin)).toBe(false);
  });
});

describe("compile-cache entries of other code (earlier builds, old configs)", () => {
  it("are removed when written over 30 days ago, at this build's first start in the home; this build's and recent ones are kept", () => {
    const home = path.join(tmp, "prune-entries");
    expect(run(home).code).toBe(0);
    const folder = path.join(home, "cache", "compile", `${manifest.compile!.tag}-${process.getuid!()}`);
    const monthAgo = new Date(Date.now() - 31 * 86_400_000);
    const ours = path.join(folder, manifest.compile!.entries[manifest.entry]!);
    const old = path.join(folder, "0badc0de");
    const recent = path.join(folder, "5eed1e55");
    const dir = path.join(folder, "d1rd1rd1");
    for (const f of [old, recent]) fs.writeFileSync(f, "not V8 code", { mode: 0o600 });
    fs.mkdirSync(dir, { mode: 0o700 });
    for (const p of [old, dir]) fs.utimesSync(p, monthAgo, monthAgo);
    // this build's own entries, however old, stay: make them all look a month old
    const kept = Object.values(manifest.compile!.entries).map((n) => path.join(folder, n)).filter((p) => fs.existsSync(p));
    for (const p of kept) fs.utimesSync(p, monthAgo, monthAgo);
    expect(run(home).code).toBe(0); // not this build's first start here: no housekeeping
    expect(fs.existsSync(old)).toBe(true);
    fs.rmSync(ours); // as a build new to this home finds it
    expect(run(home).code).toBe(0);
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
    expect(fs.existsSync(dir)).toBe(true); // only files and links are removed
    expect(kept.filter((p) => !fs.existsSync(p))).toEqual([]);
  });
});
