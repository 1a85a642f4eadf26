import { describe, expect, it } from "vitest";
import { egressBinaryOf, type EgressBinaryFacts } from "./egress.ts";

const facts = (over: Partial<EgressBinaryFacts>): EgressBinaryFacts => ({
  sea: false,
  execPath: "/usr/bin/node",
  root: "/repo",
  fromSource: true,
  platform: "linux",
  arch: "x64",
  exists: () => false,
  ...over,
});
const only = (...files: string[]) => (p: string) => files.includes(p);

describe("the binary the egress image is made of", () => {
  it("the Linux single executable itself; dist/mcpbox from the sources", () => {
    expect(egressBinaryOf(facts({ sea: true, execPath: "/usr/local/bin/mcpbox", fromSource: false }))).toBe("/usr/local/bin/mcpbox");
    expect(egressBinaryOf(facts({ exists: only("/repo/dist/mcpbox") }))).toBe("/repo/dist/mcpbox");
    expect(() => egressBinaryOf(facts({}))).toThrow(/made from dist\/mcpbox, which is not built/);
  });

  it("from the npm package: mcpbox-linux-<arch> beside the bundle, or one clear error naming it", () => {
    const npm = facts({ fromSource: false, root: "/usr/lib/node_modules/mcpbox/dist" });
    expect(egressBinaryOf({ ...npm, exists: only("/usr/lib/node_modules/mcpbox/dist/mcpbox-linux-x64") })).toBe("/usr/lib/node_modules/mcpbox/dist/mcpbox-linux-x64");
    expect(() => egressBinaryOf(npm)).toThrow("an allowlisted server needs the egress image, made from the Linux mcpbox executable mcpbox-linux-x64: the npm package ships no mcpbox executable");
    expect(() => egressBinaryOf({ ...npm, arch: "arm64" })).toThrow(/mcpbox-linux-arm64/);
  });

  it("a macOS or Windows executable is never put in the Linux container", () => {
    const mac = facts({ sea: true, fromSource: false, platform: "darwin", arch: "arm64", execPath: "/usr/local/bin/mcpbox" });
    expect(egressBinaryOf({ ...mac, exists: only("/usr/local/bin/mcpbox-linux-arm64") })).toBe("/usr/local/bin/mcpbox-linux-arm64");
    expect(() => egressBinaryOf(mac)).toThrow(/this darwin executable cannot run in the engine's Linux container/);
    const win = facts({ sea: true, fromSource: false, platform: "win32", execPath: "C:\\mcpbox\\mcpbox.exe" });
    expect(egressBinaryOf({ ...win, exists: only("C:\\mcpbox\\mcpbox-linux-x64") })).toBe("C:\\mcpbox\\mcpbox-linux-x64");
    expect(egressBinaryOf(facts({ platform: "darwin", exists: only("/repo/dist/mcpbox", "/repo/dist/mcpbox-linux-x64") }))).toBe("/repo/dist/mcpbox-linux-x64");
  });
});
