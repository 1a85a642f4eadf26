import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSea, listAssets, readAsset, repoRoot, selfCommand, selfCommandOf, type SelfFacts } from "./assets.ts";

const root = repoRoot();

/** Every file under templates/ on disk, as asset keys. */
function templateFiles(): string[] {
  const dir = path.join(root, "templates");
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

describe("assets in development", () => {
  it("is not the single executable under vitest", () => {
    expect(isSea()).toBe(false);
    expect(fs.existsSync(path.join(root, "package.json"))).toBe(true);
  });

  it("lists every file under templates/, filtered by prefix", () => {
    expect(listAssets("templates/")).toEqual(templateFiles());
    expect(listAssets("")).toEqual(templateFiles());
    expect(listAssets("./templates")).toEqual(templateFiles());
    expect(listAssets("templates/no-such-template/")).toEqual([]);
  });

  it("reads an asset by its key", () => {
    for (const key of templateFiles()) expect(readAsset(key)).toBe(fs.readFileSync(path.join(root, key), "utf8"));
  });

  it("refuses keys outside the embedded folders, as the binary would", () => {
    expect(() => readAsset("package.json")).toThrow(/no embedded file package\.json/);
    expect(() => readAsset("templates/../package.json")).toThrow(/no embedded file/);
    expect(() => readAsset("templates/no-such-file")).toThrow(/no embedded file templates\/no-such-file/);
  });
});

describe("selfCommandOf", () => {
  const facts = (over: Partial<SelfFacts>): SelfFacts => ({
    sea: false,
    execPath: "/usr/bin/node",
    moduleFile: "/repo/src/assets.ts",
    root: "/repo",
    platform: "linux",
    exists: () => false,
    realpath: (p) => p,
    ...over,
  });
  it("the single executable alone; the npm bundle with the Node running it; the sources with the project's Node", () => {
    expect(selfCommandOf(facts({ sea: true, execPath: "/usr/local/bin/mcpbox" }))).toEqual(["/usr/local/bin/mcpbox"]);
    const bundle = "/usr/lib/node_modules/mcpbox/dist/npm/mcpbox.mjs";
    expect(selfCommandOf(facts({ moduleFile: bundle, root: "/usr/lib/node_modules/mcpbox/dist" }))).toEqual(["/usr/bin/node", bundle]);
    const winBundle = "C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\mcpbox\\dist\\npm\\mcpbox.mjs";
    expect(selfCommandOf(facts({ platform: "win32", execPath: "C:\\node\\node.exe", moduleFile: winBundle }))).toEqual(["C:\\node\\node.exe", winBundle]);
    expect(selfCommandOf(facts({}))).toEqual(["/usr/bin/node", "/repo/src/cli/main.ts"]);
    expect(selfCommandOf(facts({ exists: (p) => p === "/repo/node_modules/.bin/node", realpath: () => "/repo/node_modules/node/bin/node" }))).toEqual(["/repo/node_modules/node/bin/node", "/repo/src/cli/main.ts"]);
  });
});

describe("selfCommand", () => {
  it("runs this mcpbox from source with the project's Node 24", () => {
    const cmd = selfCommand();
    expect(cmd).toHaveLength(2);
    expect(cmd[1]).toBe(path.join(root, "src", "cli", "main.ts"));
    const r = spawnSync(cmd[0]!, [...cmd.slice(1), "--version"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(spawnSync(cmd[0]!, ["--version"], { encoding: "utf8" }).stdout).toMatch(/^v24\./);
  });
});
