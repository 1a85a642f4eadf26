import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { entryJson, infoPath, isLocalPipe, isPipe, listGateways, newPipeName, removeEntry, runDir, socketPath } from "./paths.ts";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});
const tmpHome = () => {
  const h = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-paths-"));
  homes.push(h);
  return h;
};

describe("monitor endpoints", () => {
  it("POSIX: a socket in $MCPBOX_HOME/run; Windows: a named pipe of 128 random bits, local and of mcpbox's shape", () => {
    expect(socketPath("s1", "/h/.mcpbox")).toBe(path.posix.join("/h/.mcpbox", "run", "s1.sock"));
    const a = newPipeName("s1");
    expect(a).toMatch(/^\\\\\.\\pipe\\mcpbox-s1-[0-9a-f]{32}$/);
    expect(newPipeName("s1")).not.toBe(a);
    expect(newPipeName("s 2/..\\x", "0".repeat(32))).toBe(`\\\\.\\pipe\\mcpbox-s_2____x-${"0".repeat(32)}`);
    expect(isPipe(a)).toBe(true);
    expect(isPipe("/h/run/s.sock")).toBe(false);
    expect(isLocalPipe(a)).toBe(true);
    // what a run file may not send a monitor to: another host's pipe (SMB would present the user's credentials),
    // another program's pipe, a file path, a name without the random part
    for (const bad of [
      a.replace("\\\\.\\", "\\\\evil.example\\"), a.replace("\\\\.\\", "\\\\?\\UNC\\host\\"), "\\\\.\\pipe\\docker_engine",
      "C:\\Users\\me\\.mcpbox\\run\\s1.sock", "\\\\.\\pipe\\mcpbox-s1", `${a}\\..\\other`, `${a}x`, 42, undefined,
    ]) expect(isLocalPipe(bad), String(bad)).toBe(false);
    expect(path.win32.isAbsolute(a)).toBe(true);
  });

  it("lists a live gateway with the pipe and key of its run file on win32, drops a foreign pipe, and removes a dead one's record only", () => {
    const home = tmpHome();
    fs.mkdirSync(runDir(home), { mode: 0o700 });
    const info = (session: string, pid: number) => ({ session, pid, startedAt: 1, configFile: "C:\\p\\sandbox.config.ts", version: "t" });
    const key = "k".repeat(43);
    const pipe = newPipeName("live");
    fs.writeFileSync(infoPath("live", home), entryJson({ info: info("live", process.pid), key, pipe }));
    fs.writeFileSync(infoPath("dead", home), entryJson({ info: info("dead", 2 ** 22 + 12345), key, pipe: newPipeName("dead") }));
    fs.writeFileSync(infoPath("smb", home), entryJson({ info: info("smb", process.pid), key, pipe: pipe.replace("\\\\.\\", "\\\\attacker\\") }));
    const found = listGateways(home, "win32");
    expect(found).toEqual([{ info: info("live", process.pid), socket: pipe, key }]);
    expect(fs.existsSync(infoPath("dead", home))).toBe(false);
    expect(listGateways(home, "linux").map((g) => g.socket).sort()).toEqual([path.join(home, "run", "live.sock"), path.join(home, "run", "smb.sock")]);
    removeEntry("live", home, "win32");
    removeEntry("smb", home, "win32");
    expect(fs.readdirSync(runDir(home))).toEqual([]);
  });

  it("a run file from before the handshake is listed without a key (ps shows it; the monitor says to restart it)", () => {
    const home = tmpHome();
    fs.mkdirSync(runDir(home), { mode: 0o700 });
    fs.writeFileSync(infoPath("old", home), JSON.stringify({ session: "old", pid: process.pid, startedAt: 1 }));
    expect(listGateways(home, "linux")).toEqual([{ info: { session: "old", pid: process.pid, startedAt: 1 }, socket: socketPath("old", home) }]);
    expect(listGateways(home, "win32")).toEqual([]);
  });
});
