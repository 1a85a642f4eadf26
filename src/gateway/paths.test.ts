import { describe, expect, it } from "vitest";
import { checkPathArguments, containerPaths, isInside, looksLikePathArgument, MAX_DEPTH, MAX_PATHS } from "./paths.ts";

describe("looksLikePathArgument", () => {
  it.each(["path", "paths", "file_path", "filePath", "sourceDir", "directory", "root", "FILE", "output-folder"])(
    "%s names a path",
    (n) => expect(looksLikePathArgument(n)).toBe(true),
  );
  it.each(["query", "content", "profile", "pathology_code", "url", "uri"])("%s does not", (n) => {
    expect(looksLikePathArgument(n)).toBe(false);
  });
});

describe("isInside / containerPaths", () => {
  it("compares whole segments", () => {
    expect(isInside("/data", "/data")).toBe(true);
    expect(isInside("/data/x", "/data/")).toBe(true);
    expect(isInside("/database", "/data")).toBe(false);
  });
  it("reads a value every way a server might: as written, %-decoded, with \\ as a separator", () => {
    expect(containerPaths("/data/../etc/passwd")).toEqual(["/etc/passwd"]);
    expect(containerPaths("/data/%2e%2e/etc")).toEqual(["/data/%2e%2e/etc", "/etc"]);
    expect(containerPaths("/data/%252e%252e/etc")).toContain("/etc");
    expect(containerPaths("/data/..\\..\\etc")).toContain("/etc");
    expect(containerPaths("/data/100%.txt")).toEqual(["/data/100%.txt"]);
  });
  it("reads file: URIs in any case, with a localhost host, with and without what follows ? or #", () => {
    expect(containerPaths("file:///data/a%20b")).toContain("/data/a b");
    expect(containerPaths("FILE:///etc/passwd")).toContain("/etc/passwd");
    expect(containerPaths("File://localhost/etc")).toContain("/etc");
    expect(containerPaths("file:///data/x#/../../etc")).toContain("/etc");
  });
  it("cannot place relative, home, NUL, foreign-host or relative file: values", () => {
    for (const v of ["a/b", "../x", ".", "~/x", "~root/x", "/data/x\0/../../etc", "file://evil.host/data", "file:data/x", "file://%zz"]) {
      expect(containerPaths(v), v).toBeUndefined();
    }
  });
});

describe("checkPathArguments", () => {
  const mounts = ["/data", "/work"];
  const refused = (args: Record<string, unknown>, extra: string[] = []) => checkPathArguments(args, mounts, extra).ok === false;

  it("accepts absolute paths inside a mount or /tmp, and strings that are not paths", () => {
    expect(checkPathArguments({ path: "/data/a.txt" }, mounts)).toEqual({ ok: true });
    expect(checkPathArguments({ paths: ["/work/x", "/tmp/y"] }, mounts)).toEqual({ ok: true });
    expect(checkPathArguments({ content: "/etc/passwd", query: "../../x", n: 3, ok: true, z: null }, mounts)).toEqual({ ok: true });
    expect(checkPathArguments({ uri: "file:///data/x", url: "https://example.com/a/b", href: "example.com" }, mounts)).toEqual({ ok: true });
    expect(checkPathArguments({ path: "https://example.com/file.txt", file: "" }, mounts)).toEqual({ ok: true });
  });

  it("refuses escapes, other folders, home paths and relative paths", () => {
    for (const bad of ["/data/../etc/passwd", "../secret", "../../etc/passwd", "sub/a.txt", "/etc/passwd", "~/.ssh/id_rsa", "/database"]) {
      expect(refused({ path: bad }), bad).toBe(true);
    }
    expect(checkPathArguments({ paths: ["/data/ok", "/root/x"] }, mounts)).toMatchObject({ ok: false, argument: "paths[1]", value: "/root/x" });
    expect(checkPathArguments({ path: "sub/a.txt" }, mounts)).toMatchObject({ reason: expect.stringContaining("relative path") });
  });

  it("sees paths at any depth, named by where they are", () => {
    const edits = { edits: [{ path: "/data/ok", text: "x" }, { path: "/etc/x" }] };
    expect(checkPathArguments(edits, mounts)).toMatchObject({ ok: false, argument: "edits[1].path", value: "/etc/x" });
    expect(refused({ options: { file: "/etc/shadow" } })).toBe(true);
    expect(refused({ a: { b: { c: [[{ targetDir: "../../" }]] } } })).toBe(true);
    expect(refused({ options: { file: "/data/ok", nested: { paths: ["/work/a", "/proc/self/environ"] } } })).toBe(true);
    expect(refused({ options: { content: "/etc/shadow" } })).toBe(false);
  });

  it("reads keys that are data (file names in a map) as data, not as argument names", () => {
    expect(refused({ files: { "path.txt": "hello", "dir/file.py": "print(1)", "data/in.txt": "x" } })).toBe(false);
    expect(refused({ files: { "dir/file.py": "/etc/passwd" } })).toBe(false);
    expect(refused({ files: { main: { path: "/etc/passwd" } } })).toBe(true);
  });

  it("sees file: URIs under any name and bare paths under URI names", () => {
    for (const args of [
      { uri: "file:///etc/passwd" },
      { resource: "FILE:///etc/passwd" },
      { source: "File://localhost/etc/passwd" },
      { target: "file:///data/%2e%2e/etc/passwd" },
      { items: [{ link: "file:///data/../../etc" }] },
      { uri: "file://evil.host/data/x" },
      { url: "/etc/passwd" },
      { href: "../etc/passwd" },
      { url: "~/.aws/credentials" },
    ]) {
      expect(refused(args), JSON.stringify(args)).toBe(true);
    }
  });

  it("refuses %-encoded, backslashed and NUL tricks, and URLs that climb where a path goes", () => {
    for (const bad of ["/data/%2e%2e/etc", "/data/%252e%252e/etc", "/data/..%2f..%2fetc", "/data/..\\..\\etc", "/etc/passwd\0/../../data/x", "http://x/../../../etc/passwd", "notes:2024/../../etc"]) {
      expect(refused({ path: bad }), bad).toBe(true);
    }
  });

  it("checks arguments listed in config whatever their name, by name or dotted path", () => {
    expect(refused({ target: "/etc" }, ["target"])).toBe(true);
    expect(refused({ goal: "/etc" })).toBe(false);
    expect(refused({ goal: "/etc" }, ["goal"])).toBe(true);
    expect(refused({ options: { target: "/etc" } }, ["options.target"])).toBe(true);
    expect(refused({ list: [{ target: "/etc" }] }, ["target"])).toBe(true);
  });

  it("refuses what is too deep or too large to judge, quickly", () => {
    let deep: unknown = { path: "/data/ok" };
    for (let i = 0; i < MAX_DEPTH + 5; i++) deep = { next: deep };
    expect(checkPathArguments({ deep }, mounts)).toMatchObject({ ok: false, reason: expect.stringContaining("deeper than") });
    const many = { paths: Array.from({ length: MAX_PATHS + 1 }, (_, i) => `/data/f${i}`) };
    expect(checkPathArguments(many, mounts)).toMatchObject({ ok: false, reason: expect.stringContaining("too many") });
    const big = { rows: Array.from({ length: 2_000_000 }, () => 1) };
    const start = performance.now();
    expect(checkPathArguments(big, mounts)).toMatchObject({ ok: false, reason: expect.stringContaining("more than") });
    const paths = { paths: Array.from({ length: MAX_PATHS }, (_, i) => `/data/sub/../f${i}`) };
    expect(checkPathArguments(paths, mounts)).toEqual({ ok: true });
    expect(performance.now() - start).toBeLessThan(500);
  });

  it("quotes at most a bit of a long refused value", () => {
    const v = checkPathArguments({ path: `/etc/${"x".repeat(10_000)}` }, mounts);
    expect(v.ok === false && v.reason.length).toBeLessThan(400);
  });
});

describe("names that often hold a path", () => {
  it("judge values that look like paths (move_file's source and destination, cwd, ...) and pass plain words", () => {
    for (const args of [{ source: "/etc/passwd" }, { destination: "/etc/x" }, { src: "../x" }, { cwd: "/root" }, { location: "~/.ssh" }, { dest: "file:///etc" }]) {
      expect(checkPathArguments(args, ["/data"]).ok).toBe(false);
    }
    for (const args of [{ source: "en", target: "fr" }, { cwd: "/data/sub" }, { destination: "/data/new.txt" }]) {
      expect(checkPathArguments(args, ["/data"]).ok).toBe(true);
    }
  });

  it("read a file: URI as URL parsers do: after leading blanks and controls, with tabs and newlines inside", () => {
    for (const v of [" file:///etc/passwd", "\tfile:///proc/self/environ", "fi\nle:///etc/passwd", "\u0001FILE:///etc/x", "f\ti\rl\ne:/etc/x  "]) {
      for (const name of ["uri", "resource", "path"]) expect(checkPathArguments({ [name]: v }, ["/data"]).ok, `${name}: ${JSON.stringify(v)}`).toBe(false);
    }
    for (const v of [" file:///data/a.txt", "fi\tle:///data/a.txt\n"]) expect(checkPathArguments({ resource: v }, ["/data"]).ok).toBe(true);
    expect(checkPathArguments({ source: " /etc/passwd" }, ["/data"]).ok).toBe(false); // a server may trim it
    for (const v of ["fine words", "f", " ", "\t\t", "file", " fil:e"]) expect(checkPathArguments({ uri: v, text: v }, ["/data"]).ok).toBe(true);
  });

  it("judges a long run of blanks in linear time", () => {
    const started = performance.now();
    expect(checkPathArguments({ text: `file:///data/x${" ".repeat(200_000)}y`, uri: `${" ".repeat(200_000)}z` }, ["/data"]).ok).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("judge a relative value that climbs with .. (as written, %-encoded or with backslashes) and pass relative words", () => {
    for (const args of [{ source: "x/../../proc/self/environ" }, { input: "data/..%2f..%2fetc/passwd" }, { cwd: "tmp\\..\\..\\etc" }, { uri: "a/b/.." }]) {
      expect(checkPathArguments(args, ["/data"])).toMatchObject({ ok: false, reason: expect.stringContaining("relative path") });
    }
    for (const args of [{ source: "docs/readme.md" }, { output: "a..b/c" }, { url: "page.html?x=..y" }]) {
      expect(checkPathArguments(args, ["/data"]).ok).toBe(true);
    }
  });
});
