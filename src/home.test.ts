import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ancestorProblem, folderProblem, homeFolder, privateFolder, UntrustedFolder } from "./home.ts";

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-home-"));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe("homeFolder", () => {
  it("makes the home and its folders 0700", () => {
    const home = path.join(tmp, "a", "home");
    expect(homeFolder("cache/lists", { MCPBOX_HOME: home })).toBe(path.join(home, "cache", "lists"));
    for (const p of [home, path.join(home, "cache"), path.join(home, "cache", "lists")]) expect(mode(p)).toBe(0o700);
  });

  it("refuses a home others can write, naming it, its mode and the fix", () => {
    const home = path.join(tmp, "home");
    fs.mkdirSync(home);
    fs.chmodSync(home, 0o777);
    const e = catching(() => homeFolder("audit", { MCPBOX_HOME: home }));
    expect(e).toBeInstanceOf(UntrustedFolder);
    expect(e.exitCode).toBe(3);
    expect(e.message).toBe(`$MCPBOX_HOME ${home} is writable by group and others (mode 0777): they could plant files mcpbox trusts`);
    expect(e.hint).toContain(`chmod 700 ${home}`);
    expect(fs.existsSync(path.join(home, "audit"))).toBe(false);
  });

  it("refuses a folder inside the home that its group can write", () => {
    const home = path.join(tmp, "home");
    fs.mkdirSync(path.join(home, "run"), { recursive: true, mode: 0o700 });
    fs.chmodSync(path.join(home, "run"), 0o770);
    expect(() => homeFolder("run", { MCPBOX_HOME: home })).toThrow(/run is writable by its group \(mode 0770\)/);
  });

  it("tightens a folder of the user's that others could only read", () => {
    const home = path.join(tmp, "home");
    fs.mkdirSync(home, { mode: 0o755 });
    fs.chmodSync(home, 0o755);
    homeFolder("", { MCPBOX_HOME: home });
    expect(mode(home)).toBe(0o700);
  });

  it("accepts a home that is the user's own symbolic link to a private folder of theirs", () => {
    const real = path.join(tmp, "real");
    fs.mkdirSync(real, { mode: 0o700 });
    fs.symlinkSync(real, path.join(tmp, "link"));
    expect(homeFolder("run", { MCPBOX_HOME: path.join(tmp, "link") })).toBe(path.join(tmp, "link", "run"));
    expect(fs.existsSync(path.join(real, "run"))).toBe(true);
  });
});

describe("folderProblem", () => {
  it("names another user's folder (or link) as untrusted", () => {
    const dir = path.join(tmp, "d");
    fs.mkdirSync(dir, { mode: 0o700 });
    const other = (process.getuid?.() ?? 0) + 4242;
    expect(folderProblem(dir, other)).toMatchObject({ untrusted: true, why: expect.stringMatching(/^is owned by uid \d+, not by you \(uid \d+\)$/) });
    fs.symlinkSync(dir, path.join(tmp, "l"));
    expect(folderProblem(path.join(tmp, "l"), other)).toMatchObject({ untrusted: true, why: expect.stringMatching(/^is (a symbolic link )?owned by uid/) });
  });

  it("tells a file or a dangling link apart from an untrusted folder", () => {
    fs.writeFileSync(path.join(tmp, "f"), "");
    expect(folderProblem(path.join(tmp, "f"))).toMatchObject({ untrusted: false, why: "is not a folder" });
    expect(() => privateFolder(path.join(tmp, "f"), "audit.path")).toThrow(`audit.path ${path.join(tmp, "f")} cannot be used: is not a folder`);
  });
});

describe("on Windows (no POSIX owner or mode bits)", () => {
  it("skips the owner and mode checks there, keeps them everywhere else", () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-win-"));
    const shared = path.join(base, "shared");
    fs.mkdirSync(path.join(shared, "home"), { recursive: true });
    fs.chmodSync(shared, 0o777);
    fs.chmodSync(path.join(shared, "home"), 0o666 | 0o111); // what Windows reports for every folder
    const home = path.join(shared, "home");
    const other = (process.getuid?.() ?? 0) + 4242;
    expect(folderProblem(home, other, "win32")).toBeUndefined();
    expect(folderProblem(home, undefined, "win32")).toBeUndefined();
    expect(folderProblem(home, process.getuid?.(), "linux")).toMatchObject({ untrusted: true, why: expect.stringMatching(/writable by group and others \(mode 0777\)/) });
    expect(folderProblem(home, process.getuid?.(), "darwin")).toMatchObject({ untrusted: true });
    expect(ancestorProblem(home, other, "win32")).toBeUndefined();
    expect(ancestorProblem(home, process.getuid?.(), "linux")).toMatchObject({ untrusted: true, why: expect.stringMatching(/others may write/) });
    expect(privateFolder(home, "$MCPBOX_HOME", true, "win32")).toBe(home);
    expect(() => privateFolder(home, "$MCPBOX_HOME", true, "linux")).toThrow(UntrustedFolder);
    fs.writeFileSync(path.join(base, "f"), "");
    expect(folderProblem(path.join(base, "f"), undefined, "win32")).toMatchObject({ untrusted: false, why: "is not a folder" });
    fs.rmSync(base, { recursive: true, force: true });
  });
});

function catching(f: () => unknown): UntrustedFolder {
  try {
    f();
  } catch (e) {
    return e as UntrustedFolder;
  }
  throw new Error("expected a throw");
}

describe("a home under a folder others may write", () => {
  it("is refused without the sticky bit, accepted with it", () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-anc-"));
    const shared = path.join(base, "shared");
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    expect(() => privateFolder(path.join(shared, "home"), "$MCPBOX_HOME")).toThrow(/lies in .*shared, which others may write \(mode 0777, no sticky bit\)/);
    fs.chmodSync(shared, 0o1777);
    expect(privateFolder(path.join(shared, "home2"), "$MCPBOX_HOME")).toBe(path.join(shared, "home2"));
  });
});

describe("a home reached through a link (hrev)", () => {
  it("is refused when a folder on the path as given may be renamed in by others, though its resolved path is private", () => {
    const mine = path.join(tmp, "mine");
    fs.mkdirSync(mine, { mode: 0o700 });
    const shared = path.join(tmp, "shared");
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    fs.symlinkSync(mine, path.join(shared, "link")); // whoever can write shared can point link elsewhere after the check
    const e = catching(() => homeFolder("audit", { MCPBOX_HOME: path.join(shared, "link", "home") }));
    expect(e).toBeInstanceOf(UntrustedFolder);
    expect(e.message).toBe(`$MCPBOX_HOME ${path.join(shared, "link", "home")} lies in ${shared}, which others may write (mode 0777, no sticky bit): they could replace it`);
    expect(fs.readdirSync(path.join(mine, "home"))).toEqual([]);
  });
});
