/**
 * The product speaks MCP through the SDK v2 alone (`@modelcontextprotocol/server`, `client`): both eras toward the
 * clients, both toward the servers (issue 14). The SDK v1 (`@modelcontextprotocol/sdk`) is a devDependency, kept for
 * the tests and benches as the honest 2025-11-25 client (what Claude Desktop ships); no file of the product imports it.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(SRC);

/** `from "@modelcontextprotocol/sdk..."`, `import("@modelcontextprotocol/sdk...")`, `require(...)`, `export ... from`. */
const V1 = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["']@modelcontextprotocol\/sdk(?:["'/])/;

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

function productFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...productFiles(full));
    else if (/\.(?:m?[jt]sx?)$/.test(entry.name) && !isTest(entry.name)) out.push(full);
  }
  return out;
}

describe("the SDK the product runs on", () => {
  it("recognises every way a file can import the SDK v1, and not the v2 packages", () => {
    for (const line of [
      'import { Client } from "@modelcontextprotocol/sdk/client/index.js";',
      "import type { Tool } from '@modelcontextprotocol/sdk/types.js';",
      'export { McpError } from "@modelcontextprotocol/sdk/types.js";',
      'const m = await import("@modelcontextprotocol/sdk/server/index.js");',
      'import "@modelcontextprotocol/sdk";',
      'const { Server } = require("@modelcontextprotocol/sdk/server/index.js");',
    ])
      expect(line).toMatch(V1);
    for (const line of [
      'import { Server } from "@modelcontextprotocol/server";',
      'import type { Transport } from "@modelcontextprotocol/client";',
      'import { serveStdio } from "@modelcontextprotocol/server/stdio";',
      '// the v1 SDK (@modelcontextprotocol/sdk) is a devDependency',
    ])
      expect(line).not.toMatch(V1);
  });

  it("no file under src/ but a test imports the SDK v1 (@modelcontextprotocol/sdk)", () => {
    const files = productFiles(SRC);
    expect(files.length).toBeGreaterThan(50);
    const importing = files.filter((f) => V1.test(fs.readFileSync(f, "utf8"))).map((f) => path.relative(ROOT, f));
    expect(importing, "these import the SDK v1: use @modelcontextprotocol/server or @modelcontextprotocol/client (2.x)").toEqual([]);
  });

  it("the SDK v1 is a devDependency only, the v2 packages are dependencies", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    expect(pkg.dependencies?.["@modelcontextprotocol/sdk"]).toBeUndefined();
    expect(pkg.devDependencies?.["@modelcontextprotocol/sdk"]).toBeDefined();
    expect(pkg.dependencies?.["@modelcontextprotocol/server"]).toBeDefined();
    expect(pkg.dependencies?.["@modelcontextprotocol/client"]).toBeDefined();
  });
});
