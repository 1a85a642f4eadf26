import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ResolvedServer } from "../config/resolve.ts";
import { listCache } from "./list-cache.ts";
import { EMPTY_LISTS } from "./lists.ts";

const server = (name: string) => ({ name, prefix: name, image: "x:1" }) as unknown as ResolvedServer;
const lists = { ...EMPTY_LISTS, tools: [{ name: "echo", inputSchema: { type: "object" as const } }] };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("listCache", () => {
  it("gives back what was written; its first write removes files unused for 30 days, a read keeps one", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-lists-"));
    dirs.push(dir);
    const longAgo = new Date(Date.now() - 31 * 86_400_000);
    listCache(dir).write(server("lazy"), lists);
    const [lazyFile] = fs.readdirSync(dir);
    fs.utimesSync(path.join(dir, lazyFile!), longAgo, longAgo);
    expect(listCache(dir).read(server("lazy"))).toEqual(lists); // listed without a start: a use
    const stale = path.join(dir, "gone-0123456789ab.json");
    fs.writeFileSync(stale, JSON.stringify(lists));
    fs.utimesSync(stale, longAgo, longAgo);
    const cache = listCache(dir);
    expect(cache.read(server("other"))).toBeUndefined();
    cache.write(server("other"), lists);
    expect(fs.existsSync(stale)).toBe(false);
    expect(cache.read(server("lazy"))).toEqual(lists);
    expect(cache.read(server("other"))).toEqual(lists);
  });
});
