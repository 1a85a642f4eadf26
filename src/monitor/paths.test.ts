import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { infoPath, isPipe, listGateways, pipeName, removeEntry, runDir, socketPath } from "./paths.ts";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});
const tmpHome = () => {
  const h = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-paths-"));
  homes.push(h);
  return h;
};

describe("monitor socket names", () => {
  it("POSIX: a socket in $MCPBOX_HOME/run; Windows: a per-user named pipe", () => {
    expect(socketPath("s1", "/h/.mcpbox", "linux", "me")).toBe(path.posix.join("/h/.mcpbox", "run", "s1.sock"));
    expect(socketPath("s1", "/h/.mcpbox", "darwin", "me")).toBe("/h/.mcpbox/run/s1.sock");
    expect(socketPath("s1", "C:\\Users\\me\\.mcpbox", "win32", "me")).toBe("\\\\.\\pipe\\mcpbox-me-s1");
    expect(pipeName("s 2", "DOMAIN\\Jo Doe")).toBe("\\\\.\\pipe\\mcpbox-DOMAIN_Jo_Doe-s_2");
    expect(isPipe(pipeName("s", "u"))).toBe(true);
    expect(isPipe("/h/run/s.sock")).toBe(false);
    expect(pipeName("s", "alice")).not.toBe(pipeName("s", "bob"));
  });

  it("lists a live gateway by its record in run/ with its pipe on win32, and removes a dead one's record only", () => {
    const home = tmpHome();
    fs.mkdirSync(runDir(home), { mode: 0o700 });
    const info = (session: string, pid: number) => JSON.stringify({ session, pid, startedAt: 1 });
    fs.writeFileSync(infoPath("live", home), info("live", process.pid));
    fs.writeFileSync(infoPath("dead", home), info("dead", 2 ** 22 + 12345));
    const found = listGateways(home, "win32");
    expect(found.map((g) => g.socket)).toEqual([socketPath("live", home, "win32")]);
    expect(found[0]!.socket).toMatch(/^\\\\\.\\pipe\\mcpbox-.+-live$/);
    expect(fs.existsSync(infoPath("dead", home))).toBe(false);
    expect(listGateways(home, "linux").map((g) => g.socket)).toEqual([path.join(home, "run", "live.sock")]);
    removeEntry("live", home, "win32");
    expect(fs.readdirSync(runDir(home))).toEqual([]);
  });
});
