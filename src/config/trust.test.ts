import { describe, expect, it } from "vitest";
import { untrustedReason, type TrustFs } from "./_trust.ts";
import { discover, type DiscoverFs } from "./_discover.ts";

type Node = { uid: number; mode: number };
const fakeFs = (nodes: Record<string, Node>, uid = 1000, links: Record<string, string> = {}): TrustFs => ({
  uid,
  stat: (p) => {
    const n = nodes[p] ?? { uid: 0, mode: 0o40755 };
    return { ...n, isDirectory: () => (n.mode & 0o170000) === 0o40000 };
  },
  realpath: (p) => links[p] ?? p,
});
const file = "/home/ada/p/sandbox.config.ts";
const mine = { "/home/ada": { uid: 1000, mode: 0o40700 }, "/home/ada/p": { uid: 1000, mode: 0o40755 }, [file]: { uid: 1000, mode: 0o100644 } };

describe("the config is the user's own (SPEC 1)", () => {
  it("accepts the user's file in the user's folders, and root's", () => {
    expect(untrustedReason(file, fakeFs(mine))).toBeUndefined();
    expect(untrustedReason(file, fakeFs({ ...mine, [file]: { uid: 0, mode: 0o100644 } }))).toBeUndefined();
    expect(untrustedReason("/tmp/x/c.ts", fakeFs({ "/tmp": { uid: 0, mode: 0o41777 }, "/tmp/x": { uid: 1000, mode: 0o40700 }, "/tmp/x/c.ts": { uid: 1000, mode: 0o100600 } }))).toBeUndefined();
  });
  it("refuses a file another user owns", () => {
    const why = untrustedReason(file, fakeFs({ ...mine, [file]: { uid: 4242, mode: 0o100644 } }));
    expect(why?.message).toBe(`${file}: refused: owned by uid 4242, not by you (uid 1000); mcpbox runs only config code of your own`);
  });
  it("refuses a file group or others can write, with the chmod that fixes it", () => {
    for (const mode of [0o100664, 0o100646, 0o100666]) {
      const why = untrustedReason(file, fakeFs({ ...mine, [file]: { uid: 1000, mode } }));
      expect(why?.message).toContain(`writable by other users (mode 0${(mode & 0o777).toString(8)})`);
      expect(why?.hint).toBe(`chmod go-w ${file}`);
    }
  });
  it("refuses a folder above that others can write without the sticky bit, or that another user owns", () => {
    expect(untrustedReason(file, fakeFs({ ...mine, "/home/ada/p": { uid: 1000, mode: 0o40777 } }))?.hint).toBe("chmod go-w /home/ada/p");
    expect(untrustedReason(file, fakeFs({ ...mine, "/home": { uid: 0, mode: 0o40777 } }))?.message).toContain("its folder /home is writable");
    expect(untrustedReason(file, fakeFs({ ...mine, "/home/ada": { uid: 4242, mode: 0o40755 } }))?.message).toContain("owned by uid 4242");
  });
  it("follows a symlink and checks its target's owner and folders", () => {
    const fs = fakeFs({ ...mine, "/tmp/evil.ts": { uid: 4242, mode: 0o100644 } }, 1000, { [file]: "/tmp/evil.ts" });
    expect(untrustedReason(file, fs)?.message).toContain("-> /tmp/evil.ts): refused: owned by uid 4242");
  });
  it("refuses what it cannot look at", () => {
    const gone: TrustFs = { ...fakeFs(mine), realpath: () => { throw Object.assign(new Error("x"), { code: "ENOENT" }); } };
    expect(untrustedReason(file, gone)?.message).toBe(`${file}: refused: cannot be looked at (ENOENT)`);
  });

  it("has nothing to check without uids (Windows)", () => {
    expect(untrustedReason(file, { ...fakeFs({ [file]: { uid: 4242, mode: 0o100666 } }), uid: undefined })).toBeUndefined();
  });
});

describe("discovery (SPEC 1)", () => {
  const dfs = (files: string[], nodes: Record<string, Node> = {}, uid = 1000): DiscoverFs => ({
    uid,
    home: "/home/ada",
    exists: (p) => files.includes(p),
    stat: (p) => nodes[p] ?? { uid, mode: 0o40755 },
  });
  const NAMES = ["sandbox.config.ts", "sandbox.config.json"];
  it("finds the nearest config, in the order of the names", () => {
    const d = discover("/home/ada/p/a/b", NAMES, dfs(["/home/ada/p/sandbox.config.json", "/home/ada/p/sandbox.config.ts", "/home/ada/sandbox.config.ts"]));
    expect(d.file).toBe("/home/ada/p/sandbox.config.ts");
    expect(d.searched).toEqual(["/home/ada/p/a/b", "/home/ada/p/a", "/home/ada/p"]);
  });
  it("never goes past the repository root", () => {
    const d = discover("/home/ada/p/repo/src", NAMES, dfs(["/home/ada/p/repo/.git", "/home/ada/p/sandbox.config.ts"]));
    expect(d).toEqual({ file: undefined, searched: ["/home/ada/p/repo/src", "/home/ada/p/repo"], stop: "at the repository root /home/ada/p/repo" });
  });
  it("never goes past the home folder", () => {
    expect(discover("/home/ada/x", NAMES, dfs(["/home/sandbox.config.ts"])).stop).toBe("at your home folder /home/ada");
  });
  it("never enters a folder the user does not own or others can write", () => {
    const theirs = discover("/srv/p/w", NAMES, dfs(["/srv/p/sandbox.config.ts"], { "/srv/p": { uid: 4242, mode: 0o40755 } }));
    expect(theirs).toMatchObject({ file: undefined, stop: "before /srv/p, which is owned by uid 4242, not by you" });
    const shared = discover("/tmp/w", NAMES, dfs(["/tmp/sandbox.config.ts"], { "/tmp": { uid: 1000, mode: 0o41777 } }));
    expect(shared).toMatchObject({ file: undefined, searched: ["/tmp/w"], stop: "before /tmp, which other users can write" });
  });
  it("searches root's folders too (only root can plant a file there)", () => {
    const d = discover("/opt/tool/sub", NAMES, dfs(["/opt/tool/sandbox.config.ts"], { "/opt/tool/sub": { uid: 0, mode: 0o40755 }, "/opt/tool": { uid: 0, mode: 0o40755 } }));
    expect(d.file).toBe("/opt/tool/sandbox.config.ts");
  });

  it("stops at the file system root", () => {
    expect(discover("/a", NAMES, dfs([], {}, 0))).toEqual({ file: undefined, searched: ["/a", "/"], stop: "at /" });
  });
});
