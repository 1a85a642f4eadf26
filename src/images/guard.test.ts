import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isInside, linkStaysInside, readRegular, realSource } from "./guard.ts";

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-guard-")));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("linkStaysInside", () => {
  it("keeps relative links that land inside the folder", () => {
    expect(linkStaysInside("a", "b")).toBe(true);
    expect(linkStaysInside("sub/a", "../b")).toBe(true);
    expect(linkStaysInside("sub/a", "..")).toBe(true);
    expect(linkStaysInside("a", "./sub/../b")).toBe(true);
    expect(linkStaysInside("a", "..b")).toBe(true);
  });

  it("refuses absolute targets and any way out by ..", () => {
    expect(linkStaysInside("a", "/etc/passwd")).toBe(false);
    expect(linkStaysInside("a", "/proc/self/environ")).toBe(false);
    expect(linkStaysInside("a", "..")).toBe(false);
    expect(linkStaysInside("a", "../x")).toBe(false);
    expect(linkStaysInside("sub/a", "../../x")).toBe(false);
    expect(linkStaysInside("a", "sub/../../x")).toBe(false);
    expect(linkStaysInside("a", "")).toBe(false);
  });
});

describe("isInside", () => {
  it("compares whole path steps", () => {
    expect(isInside("/a/b", "/a/b")).toBe(true);
    expect(isInside("/a/b", "/a/b/c")).toBe(true);
    expect(isInside("/a/b", "/a/b/..c")).toBe(true);
    expect(isInside("/a/b", "/a/bc")).toBe(false);
    expect(isInside("/a/b", "/a")).toBe(false);
  });
});

describe("realSource", () => {
  const repo = path.join(tmp, "repo");
  const outside = path.join(tmp, "outside");
  fs.mkdirSync(path.join(repo, "real"), { recursive: true });
  fs.mkdirSync(outside, { recursive: true });
  fs.symlinkSync(outside, path.join(repo, "server"));
  fs.symlinkSync("real", path.join(repo, "alias"));

  it("follows a link that stays in the config's folder", () => {
    expect(realSource(repo, path.join(repo, "alias"), "w")).toBe(path.join(repo, "real"));
    expect(realSource(repo, repo, "w")).toBe(repo);
  });

  it("refuses a folder the repository turned into a link to somewhere else", () => {
    expect(() => realSource(repo, path.join(repo, "server"), "c: servers.s.build.context")).toThrow(
      `c: servers.s.build.context: ${path.join(repo, "server")} leads to ${outside}, outside ${repo}`,
    );
  });

  it("refuses /proc, /sys and /dev whatever the path", () => {
    expect(() => realSource("/", "/proc/self", "w")).toThrow(/^w: \/proc\/self is in \/proc, \/sys or \/dev \(it leads to \/proc\/\d+\)$/);
    expect(() => realSource(tmp, "/dev", "w")).toThrow(/is in \/proc, \/sys or \/dev/);
    expect(() => realSource("/", "/proc/self/root/etc", "w")).toThrow("w: /proc/self/root/etc is in /proc, /sys or /dev (it leads to /etc)");
  });
});

describe("readRegular", () => {
  it("refuses a FIFO at once instead of blocking on it", () => {
    const fifo = path.join(tmp, "pipe");
    execFileSync("mkfifo", [fifo]);
    const started = performance.now();
    expect(() => readRegular(fifo, "w", true)).toThrow("w: " + fifo + " is a FIFO (named pipe)");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("refuses a device and, without following, a symlink", () => {
    expect(() => readRegular("/dev/zero", "w", true)).toThrow(/character device/);
    fs.writeFileSync(path.join(tmp, "f"), "x");
    fs.symlinkSync("f", path.join(tmp, "l"));
    expect(() => readRegular(path.join(tmp, "l"), "w", false)).toThrow(/is a symlink/);
    expect(readRegular(path.join(tmp, "l"), "w", true).data.toString()).toBe("x");
  });
});
