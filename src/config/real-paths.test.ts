/**
 * On real folders. realEnv's realpath (realpath(3) on Linux) gives what Node's realpathSync gave for links absolute
 * and relative, chains, a dangling link and a missing path (both: the path itself); NOT for a link whose text goes
 * through another link and then "..": there Node's walk answers lexically and realpath(3) gives the kernel's answer,
 * the folder the engine mounts (test/security/link-dotdot.test.ts): never go back to the walk for equality.
 * isCaseInsensitive asks the flipped name first and the path itself only when that is there: on real folders (names
 * with and without letters, upper and lower case, a link, the root, missing paths) it must answer as it did with
 * both stats.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isCaseInsensitive, physicalOrWalk, realEnv } from "./checks.ts";

function asBefore(p: string, platform: NodeJS.Platform): boolean {
  if (platform === "darwin" || platform === "win32") return true;
  let at = path.resolve(p);
  while (!/[a-z]/i.test(path.basename(at)) && path.dirname(at) !== at) at = path.dirname(at);
  const base = path.basename(at);
  const flipped = path.join(path.dirname(at), [...base].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join(""));
  const [a, b] = [fs.statSync(at, { throwIfNoEntry: false }), fs.statSync(flipped, { throwIfNoEntry: false })];
  return a !== undefined && b !== undefined && a.ino === b.ino && a.dev === b.dev;
}

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-case-")));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("the case probe", () => {
  it("answers as two stats did", () => {
    for (const d of ["data/in", "123/456", "Ab/cD", "x/ẞ", "7", "dir.d/sub-1"]) fs.mkdirSync(path.join(tmp, d), { recursive: true });
    fs.mkdirSync(path.join(tmp, "AB")); // the flipped name of a folder there, as its own folder
    fs.symlinkSync(path.join(tmp, "Ab"), path.join(tmp, "aB")); // and one that is the same folder through a link
    const paths = ["/", "/tmp", tmp, `${tmp}/`, `${tmp}/data/in`, `${tmp}/123/456`, `${tmp}/123`, `${tmp}/7`, `${tmp}/Ab/cD`, `${tmp}/Ab`, `${tmp}/AB`, `${tmp}/aB`, `${tmp}/x/ẞ`, `${tmp}/dir.d/sub-1`, `${tmp}/missing/12`, "/123/456", "relative/path", ".", "/proc/1"];
    for (const p of paths) for (const platform of ["linux", "darwin", "win32"] as const) expect(isCaseInsensitive(p, platform), `${p} ${platform}`).toBe(asBefore(p, platform));
    expect(isCaseInsensitive(`${tmp}/Ab`, "linux")).toBe(true); // through the link: the same file
  });
});

describe("realpath", () => {
  it("resolves as Node's realpathSync did", () => {
    const base = path.join(tmp, "links");
    for (const d of ["real/a/b", "other"]) fs.mkdirSync(path.join(base, d), { recursive: true });
    fs.symlinkSync(path.join(base, "real"), path.join(base, "abs"));
    fs.symlinkSync("real/a", path.join(base, "rel"));
    fs.symlinkSync("abs", path.join(base, "chain"));
    fs.symlinkSync("../other", path.join(base, "real/a/up"));
    fs.symlinkSync(path.join(base, "nowhere"), path.join(base, "dangling"));
    const before = (p: string) => {
      if (!fs.existsSync(p)) return p;
      try {
        return fs.realpathSync(p);
      } catch {
        return p;
      }
    };
    const env = realEnv();
    const paths = ["abs", "abs/a/b", "rel", "rel/b", "chain/a", "real/a/up", "rel/up", "chain/a/up/", "dangling", "missing/x", "real/a/b/../b", "."];
    for (const p of [...paths.map((x) => path.join(base, x)), `${base}/rel/../other`, "/", "/proc/self"]) expect(env.realpath(p), p).toBe(before(p));
  });
});

describe("macOS: the walk's answer or realpath(3)'s", () => {
  it("keeps the walk's case when both name one place, and takes realpath(3)'s when it names another", () => {
    expect(physicalOrWalk("/Users/Ann/Repo", "/Users/ann/repo")).toBe("/Users/Ann/Repo");
    expect(physicalOrWalk("/Users/ann/repo", "/Users/ann/repo")).toBe("/Users/ann/repo");
    // sock -> e/.., e -> /var/run: the walk says the repository, the kernel /var
    expect(physicalOrWalk("/Users/ann/repo", "/private/var")).toBe("/private/var");
  });
});
