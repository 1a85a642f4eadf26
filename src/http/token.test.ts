import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureToken, fileProblem, readToken, rotateToken, TokenSource } from "./token.ts";

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-token-"));
  dirs.push(d);
  return path.join(d, "http-token");
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("token file", () => {
  it("is made once, 0600, with 32 random bytes, and read back the same", () => {
    const file = tmp();
    const t = ensureToken(file);
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(t, "base64url")).toHaveLength(32);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(ensureToken(file)).toBe(t);
  });
  it("is refused when group or others may read it", () => {
    const file = tmp();
    ensureToken(file);
    fs.chmodSync(file, 0o640);
    expect(() => readToken(file)).toThrow(/may be read or written by its group \(mode 0640\).*may be known/);
    fs.chmodSync(file, 0o604);
    expect(() => ensureToken(file)).toThrow(/by others/);
  });
  it("on Windows (no POSIX modes, no uid) only the kind of file is checked; elsewhere the mode still is", () => {
    const file = tmp();
    const t = ensureToken(file);
    fs.chmodSync(file, 0o666); // what Windows reports for every file
    expect(readToken(file, undefined, "win32")).toBe(t);
    expect(readToken(file, (process.getuid?.() ?? 0) + 1, "win32")).toBe(t);
    expect(() => readToken(file, process.getuid?.(), "linux")).toThrow(/by group and others \(mode 0666\)/);
    expect(fileProblem(fs.statSync(path.dirname(file)), undefined, "win32")).toBe("is not a regular file");
  });
  it("is refused when another user owns it, or it is a link", () => {
    const file = tmp();
    ensureToken(file);
    expect(() => readToken(file, (process.getuid?.() ?? 0) + 1)).toThrow(/is owned by uid/);
    const link = `${file}.link`;
    fs.symlinkSync(file, link);
    expect(() => readToken(link)).toThrow(/symbolic link/);
  });
  it("rotates to a new token that a running source sees at once", () => {
    const file = tmp();
    const old = ensureToken(file);
    const source = new TokenSource(file, old);
    const problems: string[] = [];
    expect(source.current((e) => problems.push(e.message))).toBe(old);
    const fresh = rotateToken(file);
    expect(fresh).not.toBe(old);
    expect(source.current((e) => problems.push(e.message))).toBe(fresh);
    fs.chmodSync(file, 0o644);
    expect(source.current((e) => problems.push(e.message))).toBeUndefined();
    expect(problems).toHaveLength(1);
  });
});
