import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ResolvedServer } from "../config/resolve.ts";
import { cacheFileName, catalogCache, checkedLists } from "./catalog-cache.ts";
import { EMPTY_LISTS } from "./lists.ts";

const server = (name: string, extra: Record<string, unknown> = {}) => ({ name, prefix: name, image: "x:1", ...extra }) as unknown as ResolvedServer;
const lists = { ...EMPTY_LISTS, tools: [{ name: "echo", inputSchema: { type: "object" as const }, annotations: { readOnlyHint: true } }] };
const dirs: string[] = [];
const scratch = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-catalog-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("catalogCache", () => {
  it("gives back what was written, for the same server config and image id only", () => {
    const dir = scratch();
    const cache = catalogCache(() => dir);
    cache.write(server("a"), "sha256:1", lists);
    expect(cache.read(server("a"), "sha256:1")).toEqual(lists);
    expect(cache.read(server("a"), "sha256:2")).toBeUndefined(); // a re-pulled or rebuilt image
    expect(cache.read(server("a", { image: "x:2" }), "sha256:1")).toBeUndefined(); // a changed config
    const [file] = fs.readdirSync(dir);
    expect(fs.statSync(path.join(dir, file!)).mode & 0o777).toBe(0o600);
  });

  it("never believes a file others may write or read, a link, or another user's file", () => {
    const dir = scratch();
    const cache = catalogCache(() => dir);
    const target = path.join(dir, cacheFileName(server("a"), "sha256:1"));
    fs.writeFileSync(target, JSON.stringify(lists), { mode: 0o600 });
    expect(cache.read(server("a"), "sha256:1")).toEqual(lists);
    fs.chmodSync(target, 0o620); // group-writable: someone else could have written it
    expect(cache.read(server("a"), "sha256:1")).toBeUndefined();
    fs.chmodSync(target, 0o600);
    expect(catalogCache(() => dir, (process.getuid?.() ?? 0) + 1).read(server("a"), "sha256:1")).toBeUndefined();
    const elsewhere = path.join(scratch(), "planted.json");
    fs.writeFileSync(elsewhere, JSON.stringify(lists), { mode: 0o600 });
    fs.rmSync(target);
    fs.symlinkSync(elsewhere, target);
    expect(cache.read(server("a"), "sha256:1")).toBeUndefined();
  });

  it("reads nothing and writes nothing when the folder cannot be trusted", () => {
    const cache = catalogCache(() => {
      throw new Error("untrusted");
    });
    expect(() => cache.write(server("a"), "sha256:1", lists)).not.toThrow();
    expect(cache.read(server("a"), "sha256:1")).toBeUndefined();
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
