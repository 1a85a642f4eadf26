import { describe, expect, it } from "vitest";
import { checkRawConfig } from "../../config/zod-check.ts";
import { formatProblem } from "../../config/problems.ts";
import type { Discovery, EngineCandidate } from "../../docker/discover.ts";
import { fileSharingOf } from "./validate.ts";

const desktop: EngineCandidate = { host: "unix:///Users/ada/.docker/run/docker.sock", kind: "docker-desktop", label: "Docker Desktop", from: "its socket" };
const colima: EngineCandidate = { host: "unix:///Users/ada/.colima/default/docker.sock", kind: "colima", label: "Colima", from: "its socket" };
const found = (c: EngineCandidate): Discovery => ({ found: c, looked: [c] });
const noSettings = () => undefined;

describe("validate: Docker Desktop file sharing", () => {
  it("only for Docker Desktop: a mount source outside its shared folders is a warning naming them", () => {
    const sharing = fileSharingOf(found(desktop), "darwin", "/Users/ada", noSettings)!;
    expect(sharing("/Users/ada/data")).toBeUndefined();
    expect(sharing("/opt/data")).toBe("/opt/data is not shared with Docker Desktop (it shares /Users, /Volumes, /private, /tmp, /var/folders)");
    expect(fileSharingOf(found(colima), "darwin", "/Users/ada", noSettings)).toBeUndefined();
    expect(fileSharingOf({ looked: [desktop] }, "darwin", "/Users/ada", noSettings)).toBeUndefined();
  });

  it("reads the folders Docker Desktop's settings list", () => {
    const settings = (p: string) => (p.endsWith("settings-store.json") ? JSON.stringify({ filesharingDirectories: ["/opt"] }) : undefined);
    const sharing = fileSharingOf(found(desktop), "darwin", "/Users/ada", settings)!;
    expect(sharing("/opt/data")).toBeUndefined();
    expect(sharing("/Users/ada/data")).toMatch(/is not shared with Docker Desktop \(it shares \/opt\)/);
  });

  it("reaches the mount checks through the check environment", () => {
    const fileSharing = fileSharingOf(found(desktop), "darwin", "/Users/ada", noSettings)!;
    const env = { home: "/Users/ada", exists: () => true, realpath: (p: string) => p, platform: "darwin" as const, fileSharing };
    const problems = (e: typeof env | Omit<typeof env, "fileSharing">) =>
      checkRawConfig({ servers: { a: { image: "mcp/x:1", mounts: [{ source: "/opt/data", target: "/data" }] } } }, "/Users/ada/p/sandbox.config.ts", e).problems;
    expect(problems(env).map((p) => formatProblem("sandbox.config.ts", p))).toEqual([expect.stringMatching(/warning.*\/opt\/data is not shared with Docker Desktop/)]);
    const { fileSharing: _, ...without } = env;
    expect(problems(without)).toEqual([]);
  });
});
