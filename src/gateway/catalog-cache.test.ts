import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ResolvedServer } from "../config/resolve.ts";
import { cacheFileName, catalogCache, checkedEntry, checkedLists, loadCatalogChecks, type RememberedServer } from "./catalog-cache.ts";
import { EMPTY_LISTS } from "./lists.ts";

const server = (name: string, extra: Record<string, unknown> = {}) => ({ name, prefix: name, image: "x:1", ...extra }) as unknown as ResolvedServer;
const lists = { ...EMPTY_LISTS, tools: [{ name: "echo", inputSchema: { type: "object" as const }, annotations: { readOnlyHint: true } }] };
const entry: RememberedServer = { lists, capabilities: { tools: { listChanged: true } }, instructions: "use echo", serverInfo: { name: "fixture", version: "1.0.0" }, era: { kind: "legacy" } };
const dirs: string[] = [];
const scratch = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-catalog-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
beforeAll(loadCatalogChecks);

describe("catalogCache", () => {
  it("gives back what was written, for the same server config and image id only", () => {
    const dir = scratch();
    const cache = catalogCache(() => dir);
    expect(cache.exists(server("a"), "sha256:1")).toBe(false);
    cache.write(server("a"), "sha256:1", entry);
    expect(cache.exists(server("a"), "sha256:1")).toBe(true);
    expect(cache.exists(server("a"), "sha256:2")).toBe(false);
    expect(cache.read(server("a"), "sha256:1")).toEqual(entry);
    expect(cache.read(server("a"), "sha256:2")).toBeUndefined(); // a re-pulled or rebuilt image
    expect(cache.read(server("a", { image: "x:2" }), "sha256:1")).toBeUndefined(); // a changed config
    const [file] = fs.readdirSync(dir);
    expect(fs.statSync(path.join(dir, file!)).mode & 0o777).toBe(0o600);
  });

  it("anyFor: false only when nothing at all is kept under the server's name, whatever the image (one listing per cache)", () => {
    const dir = scratch();
    fs.writeFileSync(path.join(dir, cacheFileName(server("a"), "sha256:1")), "{}", { mode: 0o600 });
    const cache = catalogCache(() => dir);
    expect(cache.anyFor!(server("a"))).toBe(true); // another image's or config's entry: exists() decides
    expect(cache.anyFor!(server("b"))).toBe(false);
    expect(catalogCache(() => path.join(dir, "gone")).anyFor!(server("a"))).toBe(false);
    const untrusted = catalogCache(() => {
      throw new Error("not a private folder");
    });
    expect(untrusted.anyFor!(server("a"))).toBe(true); // read() says why, and shows nothing
  });

  it("never believes a file others may write or read, a link, or another user's file, and says so", () => {
    const dir = scratch();
    const warnings: string[] = [];
    const cache = catalogCache(() => dir, { warn: (l) => warnings.push(l) });
    cache.write(server("a"), "sha256:1", entry);
    const target = path.join(dir, cacheFileName(server("a"), "sha256:1"));
    expect(cache.read(server("a"), "sha256:1")).toEqual(entry);
    expect(warnings).toEqual([]);
    fs.chmodSync(target, 0o620); // group-writable: someone else could have written it
    expect(cache.read(server("a"), "sha256:1")).toBeUndefined();
    expect(warnings.pop()).toMatch(/ignored the cached catalog .*others may read or write it \(mode 620\)/);
    fs.chmodSync(target, 0o600);
    const other = catalogCache(() => dir, { uid: (process.getuid?.() ?? 0) + 1, warn: (l) => warnings.push(l) });
    expect(other.read(server("a"), "sha256:1")).toBeUndefined();
    expect(warnings.pop()).toMatch(/belongs to another user/);
    const elsewhere = path.join(scratch(), "planted.json");
    fs.copyFileSync(target, elsewhere);
    fs.rmSync(target);
    fs.symlinkSync(elsewhere, target);
    expect(cache.read(server("a"), "sha256:1")).toBeUndefined();
    expect(warnings.pop()).toMatch(/it is a link/);
    // a write replaces the link itself, never the file it points to
    cache.write(server("a"), "sha256:1", { ...entry, instructions: "new" });
    expect(fs.lstatSync(target).isSymbolicLink()).toBe(false);
    expect(JSON.parse(fs.readFileSync(elsewhere, "utf8")).instructions).toBe("use echo");
  });

  it("ignores, with a warning, a file that is not what mcpbox writes, and a fifo without blocking", () => {
    const dir = scratch();
    const warnings: string[] = [];
    const cache = catalogCache(() => dir, { warn: (l) => warnings.push(l) });
    const target = path.join(dir, cacheFileName(server("a"), "sha256:1"));
    for (const bad of ["{not json", JSON.stringify({ v: 2, lists: { tools: [{ name: 1 }] }, capabilities: {} }), JSON.stringify({ lists, capabilities: {} })]) {
      fs.writeFileSync(target, bad, { mode: 0o600 });
      expect(cache.read(server("a"), "sha256:1")).toBeUndefined();
    }
    expect(warnings.length).toBe(1); // once per file and reason
    expect(warnings[0]).toMatch(/not what mcpbox writes there/);
    fs.rmSync(target);
    if (process.platform !== "win32") {
      execFileSync("mkfifo", ["-m", "600", target]);
      expect(cache.read(server("a"), "sha256:1")).toBeUndefined();
      expect(warnings.pop()).toMatch(/not a regular file/);
    }
  });

  it("does not read a file above its size cap", () => {
    const dir = scratch();
    const warnings: string[] = [];
    const cache = catalogCache(() => dir, { warn: (l) => warnings.push(l) });
    const target = path.join(dir, cacheFileName(server("a"), "sha256:1"));
    fs.writeFileSync(target, "", { mode: 0o600 });
    fs.truncateSync(target, 20 * 1024 * 1024);
    expect(cache.read(server("a"), "sha256:1")).toBeUndefined();
    expect(warnings.pop()).toMatch(/larger than/);
  });

  it("reads nothing and writes nothing when the folder cannot be trusted", () => {
    const warnings: string[] = [];
    const cache = catalogCache(
      () => {
        throw new Error("$MCPBOX_HOME /x is writable by others");
      },
      { warn: (l) => warnings.push(l) },
    );
    expect(() => cache.write(server("a"), "sha256:1", entry)).not.toThrow();
    expect(cache.read(server("a"), "sha256:1")).toBeUndefined();
    expect(warnings).toEqual(["the cached catalog is not used: $MCPBOX_HOME /x is writable by others"]);
  });

  it("does not keep an entry that holds a secret value the server was given", () => {
    const dir = scratch();
    const cache = catalogCache(() => dir, { redact: (t) => t.replaceAll("s3cret-value", "[redacted]") });
    cache.write(server("a"), "sha256:1", { ...entry, instructions: "token s3cret-value" });
    expect(fs.readdirSync(dir)).toEqual([]);
    cache.write(server("a"), "sha256:1", entry);
    expect(fs.readdirSync(dir)).toHaveLength(1);
  });

  it("removes, at its first write, files neither read nor written for 30 days and unfinished writes after an hour; a read keeps a file", () => {
    const dir = scratch();
    const longAgo = new Date(Date.now() - 31 * 86_400_000);
    const hourAgo = new Date(Date.now() - 2 * 3600_000);
    const at = (name: string, when: Date, text = "{}") => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, text, { mode: 0o600 });
      fs.utimesSync(p, when, when);
      return p;
    };
    catalogCache(() => dir).write(server("read"), "sha256:1", entry);
    const read = path.join(dir, cacheFileName(server("read"), "sha256:1"));
    fs.utimesSync(read, longAgo, longAgo);
    expect(catalogCache(() => dir).read(server("read"), "sha256:1")).toEqual(entry); // a use: it stays
    const stale = at("old-0123456789abcdef.json", longAgo);
    const recent = at("recent-0123456789abcdef.json", new Date());
    const tmp = at("x-0123456789abcdef.json.0a1b2c3d.tmp", hourAgo);
    const folder = path.join(dir, "sub");
    fs.mkdirSync(folder);
    fs.utimesSync(folder, longAgo, longAgo);
    const outside = scratch();
    const kept = path.join(outside, "kept.json");
    fs.writeFileSync(kept, "{}");
    fs.utimesSync(kept, longAgo, longAgo);
    fs.symlinkSync(kept, path.join(dir, "link.json"));
    fs.lutimesSync(path.join(dir, "link.json"), longAgo, longAgo);
    const cache = catalogCache(() => dir);
    cache.write(server("a"), "sha256:1", entry);
    expect(fs.readdirSync(dir).sort()).toEqual([cacheFileName(server("a"), "sha256:1"), path.basename(read), path.basename(recent), "sub"].sort());
    expect([fs.existsSync(stale), fs.existsSync(tmp), fs.existsSync(kept)]).toEqual([false, false, true]); // a link goes, never what it names
  });

  it("does not keep what a later read would refuse", () => {
    const dir = scratch();
    const cache = catalogCache(() => dir);
    cache.write(server("a"), "sha256:1", { ...entry, instructions: "x".repeat(300 * 1024) });
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe("checkedEntry", () => {
  it("takes what mcpbox wrote, and refuses a bad capability, serverInfo or instructions", () => {
    const ok = { v: 2, ...entry };
    expect(checkedEntry(ok)).toEqual(entry);
    expect(checkedEntry({ ...ok, v: 1 })).toBeUndefined();
    expect(checkedEntry({ ...ok, capabilities: "all" })).toBeUndefined();
    expect(checkedEntry({ ...ok, serverInfo: { name: 1 } })).toBeUndefined();
    expect(checkedEntry({ ...ok, instructions: 7 })).toBeUndefined();
    expect(checkedEntry({ ...ok, era: undefined })).toBeUndefined();
    expect(checkedEntry({ ...ok, era: { kind: "modern", revision: "2026-07-28" } })).toBeUndefined(); // no discover answer
    const discover = { supportedVersions: ["2026-07-28"], capabilities: {}, serverInfo: { name: "m", version: "1" } };
    const modern = checkedEntry({ ...ok, era: { kind: "modern", discover, revision: "2026-07-28" } });
    expect(modern?.era).toEqual({ kind: "modern", discover, revision: "2026-07-28" });
  });
});

describe("checkedLists", () => {
  it("takes lists that pass the MCP item schemas, as written", () => {
    expect(checkedLists(lists)).toEqual(lists);
    expect(checkedLists({ tools: [] })).toEqual(EMPTY_LISTS);
  });

  it("refuses what a server's answer could not be", () => {
    expect(checkedLists(null)).toBeUndefined();
    expect(checkedLists([])).toBeUndefined();
    expect(checkedLists({ tools: {} })).toBeUndefined();
    expect(checkedLists({ tools: [{ name: 1, inputSchema: { type: "object" } }] })).toBeUndefined();
    expect(checkedLists({ tools: [{ name: "no-schema" }] })).toBeUndefined();
    expect(checkedLists({ prompts: [{}] })).toBeUndefined();
    expect(checkedLists({ templates: Array.from({ length: 101 }, (_, i) => ({ name: `t${i}`, uriTemplate: "x://{a}" })) })).toBeUndefined();
    const huge = { tools: [{ name: "big", description: "x".repeat(9 * 1024 * 1024), inputSchema: { type: "object" } }] };
    expect(checkedLists(huge)).toBeUndefined();
  });
});
