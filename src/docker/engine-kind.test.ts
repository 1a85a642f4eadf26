import type { ContainerCreateOptions } from "dockerode";
import { describe, expect, it } from "vitest";
import { createOptionsFor, kindFromPing, kindFromVersion } from "./engine-kind.ts";

describe("engine kind", () => {
  it("tells Podman from Docker by the /_ping headers (as measured on Podman 4.3 and Docker 20.10)", () => {
    expect(kindFromPing({ "api-version": "1.41", "libpod-api-version": "4.3.1", server: "Libpod/4.3.1 (linux)" })).toBe("podman");
    expect(kindFromPing({ "api-version": "1.41", server: "Docker/20.10.24+dfsg1 (linux)", ostype: "linux" })).toBe("docker");
    expect(kindFromPing({})).toBe("docker");
  });

  it("tells Podman from Docker by /version's Components", () => {
    expect(kindFromVersion({ Components: [{ Name: "Podman Engine" }, { Name: "Conmon" }] })).toBe("podman");
    expect(kindFromVersion({ Components: [{ Name: "Engine" }, { Name: "containerd" }] })).toBe("docker");
    expect(kindFromVersion({})).toBe("docker");
  });
});

describe("create options for the engine", () => {
  const runner: ContainerCreateOptions = {
    User: "1000:1000",
    HostConfig: { Tmpfs: { "/tmp": "rw,noexec,size=64m", "/work": "rw,noexec,nosuid,nodev,size=64m,uid=1000,gid=1000,mode=0700" } },
  };

  it("gives Podman `U` for a tmpfs owned by the container's user (it refuses uid=/gid=: unknown mount option)", () => {
    const out = createOptionsFor("podman", runner);
    expect(out.HostConfig?.Tmpfs).toEqual({ "/tmp": "rw,noexec,size=64m", "/work": "rw,noexec,nosuid,nodev,size=64m,mode=0700,U" });
    expect(runner.HostConfig?.Tmpfs?.["/work"]).toContain("uid=1000"); // not changed in place
  });

  it("leaves Docker's options, and a tmpfs owned by someone else than the container's user, as they are", () => {
    expect(createOptionsFor("docker", runner)).toBe(runner);
    const other = { ...runner, User: "1001:1001" };
    expect(createOptionsFor("podman", other).HostConfig?.Tmpfs?.["/work"]).toContain("uid=1000,gid=1000");
    const named = { ...runner, User: "node" };
    expect(createOptionsFor("podman", named).HostConfig?.Tmpfs?.["/work"]).toContain("uid=1000");
  });
});
