import { describe, expect, it } from "vitest";
import { checkPathArguments, containerPath, isInside, looksLikePathArgument } from "./paths.ts";

describe("looksLikePathArgument", () => {
  it.each(["path", "paths", "file_path", "filePath", "sourceDir", "directory", "root", "FILE", "output-folder"])(
    "%s names a path",
    (n) => expect(looksLikePathArgument(n)).toBe(true),
  );
  it.each(["query", "content", "profile", "pathology_code", "url"])("%s does not", (n) => {
    expect(looksLikePathArgument(n)).toBe(false);
  });
});

describe("isInside / containerPath", () => {
  it("compares whole segments", () => {
    expect(isInside("/data", "/data")).toBe(true);
    expect(isInside("/data/x", "/data/")).toBe(true);
    expect(isInside("/database", "/data")).toBe(false);
  });
  it("normalizes .. and file URLs", () => {
    expect(containerPath("/data/../etc/passwd", "/data")).toBe("/etc/passwd");
    expect(containerPath("a/../../b", "/data")).toBe("/b");
    expect(containerPath("file:///data/a%20b", "/data")).toBe("/data/a b");
    expect(containerPath("~/x", "/data")).toBeUndefined();
  });
});

describe("checkPathArguments", () => {
  const mounts = ["/data", "/work"];
  it("accepts paths inside a mount, relative ones and /tmp", () => {
    expect(checkPathArguments({ path: "/data/a.txt" }, mounts)).toEqual({ ok: true });
    expect(checkPathArguments({ path: "sub/a.txt" }, mounts)).toEqual({ ok: true });
    expect(checkPathArguments({ paths: ["/work/x", "/tmp/y"] }, mounts)).toEqual({ ok: true });
    expect(checkPathArguments({ content: "/etc/passwd" }, mounts)).toEqual({ ok: true });
  });
  it("refuses escapes, other folders and home paths", () => {
    for (const bad of ["/data/../etc/passwd", "../secret", "/etc/passwd", "~/.ssh/id_rsa", "/database"]) {
      const v = checkPathArguments({ path: bad }, mounts);
      expect(v.ok, bad).toBe(false);
    }
    const v = checkPathArguments({ paths: ["/data/ok", "/root/x"] }, mounts);
    expect(v).toMatchObject({ ok: false, argument: "paths", value: "/root/x" });
  });
  it("checks arguments listed in config whatever their name", () => {
    expect(checkPathArguments({ target: "/etc" }, mounts, ["target"]).ok).toBe(false);
    expect(checkPathArguments({ target: "/etc" }, mounts).ok).toBe(true);
  });
});
