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

describe("init --from <client> in a folder others share (hrev round 5)", () => {
  const fake = (owner: (p: string) => number, mode: (p: string) => number) => ({
    uid: 1000,
    stat: (p: string) => ({ uid: owner(p), mode: mode(p), isDirectory: () => !p.endsWith(".json") }),
    realpath: (p: string) => p,
  });

  it("refuses a project file another user owns or could swap, and names the way to read it anyway", () => {
    put(path.join(cwd, ".cursor", "mcp.json"));
    const file = path.join(cwd, ".cursor", "mcp.json");
    const theirs = fake((p) => (p === file ? 1001 : 1000), () => 0o644);
    expect(() => locate("cursor", { cwd, home, platform: "linux", trust: theirs })).toThrow(
      /^--from cursor would read the project file .*mcp\.json: refused: owned by uid 1001, not by you \(uid 1000\)/,
    );
    const shared = fake(() => 1000, (p) => (p === cwd ? 0o777 : 0o755));
    expect(() => locate("cursor", { cwd, home, platform: "linux", trust: shared })).toThrow(/refused: its folder .*cloned-repo is writable by other users/);
    const mine = fake(() => 1000, () => 0o755);
    expect(locate("cursor", { cwd, home, platform: "linux", trust: mine }).file).toBe(file);
    // named by the user: read as named, and said to be another user's (or changeable by others)
    const named = locate(file, { cwd, home, platform: "linux", trust: theirs });
    expect(named.file).toBe(file);
    expect(named.notes).toEqual([`${file} belongs to another user (uid 1001): read because you named it; check its servers before you serve them`]);
    const writable = fake(() => 1000, (p) => (p === file ? 0o666 : 0o755));
    expect(locate(file, { cwd, home, platform: "linux", trust: writable }).notes).toEqual([`${file} can be changed by other users (mode 666): read because you named it; check its servers before you serve them`]);
    expect(locate(file, { cwd, home, platform: "linux", trust: mine }).notes).toEqual([]);
  });
});
