/**
 * The mount rules on each OS (issue 17), with that OS's own path rules (path.win32 / path.posix) and case rule:
 * Windows sources (drive letters, UNC, \\wsl$), macOS case-insensitive volumes, the home folder on each OS.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { denyReason, isInside, isInsideResolved, tilde, type DenyEnv } from "./_denylist.ts";
import { writableDanger, type WritableEnv } from "./_writable.ts";
import { checkMounts, type MountEnv } from "./_mount-checks.ts";
import type { Problem } from "./problems.ts";

type Os = "win32" | "darwin" | "linux";
const HOME: Record<Os, string> = { win32: "C:\\Users\\me", darwin: "/Users/me", linux: "/home/me" };
/** A machine of this OS: its home, its default case rule (Windows and macOS fold case), no links. */
const machine = (os: Os, over: Partial<MountEnv> = {}): MountEnv => ({
  home: HOME[os],
  platform: os,
  vars: {},
  exists: () => true,
  realpath: (p) => p,
  caseInsensitive: () => os !== "linux",
  modules: [],
  ...over,
});
const deny = (os: Os, p: string, over: Partial<DenyEnv> = {}) => denyReason(p, machine(os, over));

describe("the home folder and its credentials, on each OS", () => {
  it.each([
    ["win32", "C:\\Users\\me"], ["win32", "c:\\users\\ME"], ["win32", "C:/Users/me"], ["darwin", "/Users/me"], ["darwin", "/users/ME"],
    ["linux", "/home/me"],
  ] as const)("%s refuses %s as your home folder", (os, p) => {
    expect(deny(os, p)).toEqual({ kind: "sensitive", what: "your home folder" });
  });
  it.each([
    ["win32", "C:\\Users\\me\\.ssh\\id_ed25519", "~/.ssh"],
    ["win32", "C:\\Users\\me\\.aws", "~/.aws"],
    ["win32", "C:\\Users\\me\\AppData\\Roaming\\Microsoft\\Credentials", "~/AppData/Roaming/Microsoft/Credentials"],
    ["win32", "C:\\Users\\me\\AppData\\Roaming\\gcloud", "~/AppData/Roaming/gcloud"],
    ["darwin", "/Users/me/.SSH", "~/.ssh"],
    ["darwin", "/Users/me/Library/Keychains/login.keychain-db", "~/Library/Keychains"],
    ["linux", "/home/me/.ssh", "~/.ssh"],
  ] as const)("%s refuses %s (%s)", (os, p, what) => {
    expect(deny(os, p)).toEqual({ kind: "sensitive", what });
  });
  it("a folder that holds the home is refused as one that holds its credentials", () => {
    expect(deny("win32", "C:\\Users")?.what).toMatch(/^a folder that contains ~\/\.ssh|^a folder that contains/);
    expect(deny("darwin", "/Users")?.kind).toBeDefined();
  });
  it("case folds only where the file system does: Linux keeps /home/me/.SSH apart", () => {
    expect(deny("linux", "/home/me/.SSH")).toBeUndefined();
    expect(deny("darwin", "/Users/me/.SSH", { caseInsensitive: () => false })).toBeUndefined(); // a case-sensitive APFS volume
  });
  it("accepts ordinary folders on each OS", () => {
    for (const [os, p] of [
      ["win32", "C:\\Users\\me\\reports"], ["win32", "D:\\data"], ["win32", "\\\\fileserver\\share\\reports"],
      ["darwin", "/Users/me/reports"], ["darwin", "/Volumes/External/data"], ["linux", "/home/me/reports"],
    ] as const) {
      expect(deny(os, p), `${os} ${p}`).toBeUndefined();
    }
  });
});

describe("Windows system places and drives", () => {
  it.each([
    ["C:\\", "the whole drive C:\\"], ["D:\\", "the whole drive D:\\"], ["C:\\Windows\\System32\\config", "C:\\Windows"],
    ["c:\\windows", "C:\\Windows"],
  ])("refuses %s", (p, what) => expect(deny("win32", p)).toEqual({ kind: "sensitive", what }));
  it.each(["C:\\ProgramData\\docker", "C:\\ProgramData\\DockerDesktop\\vm-data", "\\\\wsl$\\docker-desktop-data\\data", "\\\\wsl.localhost\\docker-desktop"])(
    "refuses %s as an engine's",
    (p) => expect(deny("win32", p)?.kind).toBe("docker-socket"),
  );
  it("a Windows path is no POSIX path: /etc is not a Windows system folder", () => {
    expect(deny("win32", "D:\\etc")).toBeUndefined();
  });
});

describe("WSL distributions seen from Windows (\\\\wsl$\\<distro>\\...)", () => {
  it.each([
    ["\\\\wsl$\\Ubuntu", "sensitive", "the root filesystem of WSL's Ubuntu"],
    ["\\\\wsl$\\Ubuntu\\etc\\shadow", "sensitive", "/etc in WSL's Ubuntu"],
    ["\\\\wsl$\\Ubuntu\\home\\me", "sensitive", "your home folder in WSL's Ubuntu"],
    ["\\\\wsl.localhost\\Debian\\home\\me\\.ssh", "sensitive", "/home/me/.ssh in WSL's Debian"],
    ["\\\\wsl$\\Ubuntu\\var\\run\\docker.sock", "docker-socket", "a container engine socket"],
    ["\\\\wsl$\\Ubuntu\\run\\user\\1000", "docker-socket", "/run/user, which holds a container engine socket in WSL's Ubuntu"],
  ] as const)("refuses %s", (p, kind, what) => {
    expect(deny("win32", p)).toEqual({ kind, what });
  });
  it("accepts a project folder inside a distribution", () => {
    expect(deny("win32", "\\\\wsl$\\Ubuntu\\home\\me\\reports")).toBeUndefined();
  });
});

describe("writable mounts of what the host runs, with each OS's client folders", () => {
  const w = (os: Os, p: string) => writableDanger(p, [], machine(os) as WritableEnv);
  it.each([
    ["win32", "C:\\Users\\me\\AppData\\Roaming\\Claude", "~/AppData/Roaming/Claude, an MCP client's configuration"],
    ["win32", "c:\\users\\me\\appdata\\roaming\\code\\user", "~/AppData/Roaming/Code/User, an MCP client's configuration"],
    ["win32", "C:\\Users\\me\\.cursor", "~/.cursor, an MCP client's configuration"],
    ["darwin", "/Users/me/Library/Application Support/Claude", "~/Library/Application Support/Claude, an MCP client's configuration"],
    ["darwin", "/users/me/.zshrc", "~/.zshrc, which the host runs"],
    ["linux", "/home/me/.config/Claude", "~/.config/Claude, an MCP client's configuration"],
  ] as const)("%s: %s", (os, p, what) => {
    expect(w(os, p)).toBe(`is ${what}`);
  });
  it("a repository's .git on Windows", () => {
    expect(writableDanger("C:\\code\\app\\.git\\hooks", [], machine("win32", { exists: () => false }) as WritableEnv)).toMatch(/inside a repository's \.git folder/);
  });
});

describe("mount sources written as Windows paths", () => {
  const problemsOf = (source: string, os: Os = "win32") => {
    const problems: Problem[] = [];
    checkMounts({ template: "node", package: "x@1", mounts: [{ source, target: "/data" }] } as never, [], {}, ["servers", "s"], "C:\\work", machine(os), problems);
    return problems.map((p) => `${p.path.join(".")}: ${p.message}`);
  };
  it("a drive letter is no bind separator; a colon after it is", () => {
    expect(problemsOf("C:\\Users\\me\\reports")).toEqual([]);
    expect(problemsOf("C:/Users/me/reports")).toEqual([]);
    expect(problemsOf("C:\\Users\\me\\a:b")).toEqual(['servers.s.mounts.0.source: C:\\Users\\me\\a:b contains ":", which Docker\'s bind syntax reads as a separator']);
    expect(problemsOf("/srv/a:b", "linux")).toHaveLength(1);
  });
  it("a home folder given as a Windows path is refused with the key that lifts it", () => {
    expect(problemsOf("C:\\Users\\me")).toEqual(["servers.s.mounts.0.source: mounts your home folder, which is refused"]);
  });
});

describe("path helpers follow the OS given", () => {
  it("isInside with win32 rules", () => {
    expect(isInside("C:\\Users\\me\\x", "c:\\users\\me", path.win32)).toBe(true);
    expect(isInside("C:\\Users\\mex", "C:\\Users\\me", path.win32)).toBe(false);
    expect(isInside("D:\\Users\\me\\x", "C:\\Users\\me", path.win32)).toBe(false);
    // a name that starts with two dots is inside; ".." itself and what it leads to are not
    expect(isInside("C:\\Users\\u\\.ssh\\..x", "C:\\Users\\u\\.ssh", path.win32)).toBe(true);
    expect(isInside("C:\\Users\\u\\.ssh\\..\\x", "C:\\Users\\u\\.ssh", path.win32)).toBe(false);
    expect(isInside("C:\\Users\\u", "C:\\Users\\u\\.ssh", path.win32)).toBe(false);
  });

  it("isInside and isInsideResolved with POSIX rules: whole names, never a prefix of one", () => {
    for (const inside of [isInside, isInsideResolved]) {
      expect(inside("/a/b/c", "/a/b", path.posix)).toBe(true);
      expect(inside("/a/bc", "/a/b", path.posix)).toBe(false);
      expect(inside("/a/b", "/a/b", path.posix)).toBe(false);
      expect(inside("/a", "/a/b", path.posix)).toBe(false);
      expect(inside("/a/b/..x", "/a/b", path.posix)).toBe(true);
      expect(inside("/x", "/", path.posix)).toBe(true);
    }
    expect(isInside("/a/b/../c", "/a/b", path.posix)).toBe(false);
  });
  it("tilde writes ~/ with forward slashes on every OS", () => {
    expect(tilde("C:\\Users\\me\\AppData\\Roaming\\Claude", "C:\\Users\\me", "win32")).toBe("~/AppData/Roaming/Claude");
    expect(tilde("/Users/me/Library", "/Users/me", "darwin")).toBe("~/Library");
  });
});

describe("Docker Desktop file sharing in validate (a warning: serve may use another engine)", () => {
  it("warns about a source outside the shared folders, with the fix", () => {
    const problems: Problem[] = [];
    const env = machine("darwin", { fileSharing: (s) => (s.startsWith("/Users/") ? undefined : `${s} is not shared with Docker Desktop`) });
    const server = { template: "node", package: "x@1", mounts: [{ source: "/opt/data", target: "/a" }, { source: "/Users/me/r", target: "/b" }] };
    checkMounts(server as never, [], {}, ["servers", "s"], "/Users/me", env, problems);
    expect(problems).toEqual([
      {
        severity: "warning",
        path: ["servers", "s", "mounts", 0, "source"],
        message: "/opt/data is not shared with Docker Desktop",
        hint: "add the folder in Docker Desktop → Settings → Resources → File sharing, or move it under a shared folder",
      },
    ]);
  });
});
