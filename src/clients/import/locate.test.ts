import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { locate } from "./locate.ts";

let tmp: string;
let home: string;
let cwd: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-locate-"));
  home = path.join(tmp, "home");
  cwd = path.join(tmp, "cloned-repo");
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const put = (file: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "{}");
};

describe("init --from <client>", () => {
  it("reads the user's own file over a project file in the working folder, and says it passed that one over", () => {
    put(path.join(home, ".cursor", "mcp.json"));
    put(path.join(cwd, ".cursor", "mcp.json"));
    const found = locate("cursor", { cwd, home, platform: "linux" });
    expect(found.file).toBe(path.join(home, ".cursor", "mcp.json"));
    expect(found.notes.join("\n")).toMatch(/cloned-repo\/\.cursor\/mcp\.json \(this folder's project file\) was not read; pass --from \.cursor\/mcp\.json/);
  });

  it("reads a project file only when the user has none, and says which file it read", () => {
    put(path.join(cwd, ".vscode", "mcp.json"));
    const found = locate("vscode", { cwd, home, platform: "linux" });
    expect(found.file).toBe(path.join(cwd, ".vscode", "mcp.json"));
    expect(found.notes.join("\n")).toMatch(/^read the project file .*cloned-repo\/\.vscode\/mcp\.json/);
  });
});
