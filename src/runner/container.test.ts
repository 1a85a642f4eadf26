import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/resolve.ts";
import { runContainerOptions } from "./container.ts";

const ctx = { session: "s1", configHash: "h", ownerPid: 42, image: "mcpbox/code-runner:abc" };
const runner = (extra: Record<string, unknown> = {}) =>
  resolveConfig({ servers: { code: { builtin: "code-runner", ...extra } } } as never, "/cfg/sandbox.config.ts").servers[0]!;

describe("runContainerOptions", () => {
  it("keeps the hardening and adds a private /work", () => {
    const o = runContainerOptions(runner({ limits: { tmpfs: "16m" } }), ctx, "python");
    const h = o.HostConfig!;
    expect(h).toMatchObject({ NetworkMode: "none", ReadonlyRootfs: true, CapDrop: ["ALL"], Init: true, PidsLimit: 256 });
    expect(h.Memory).toBe(h.MemorySwap);
    expect(h.AutoRemove).toBeUndefined();
    expect(h.Tmpfs!["/tmp"]).toContain("noexec");
    expect(h.Tmpfs!["/work"]).toBe(`rw,noexec,nosuid,nodev,size=${16 * 1024 * 1024},uid=1000,gid=1000,mode=0700`);
    expect(o.User).toBe("1000:1000");
    expect(o.Labels).toMatchObject({ "mcpbox.session": "s1", "mcpbox.server": "code", "mcpbox.run": "python" });
    expect(o.Entrypoint).toBeUndefined();
    expect(o.Cmd).toEqual(["python"]); // the launcher's only argument: the language (python pre-starts its interpreter)
  });

  it("names every run's container differently", () => {
    const a = runContainerOptions(runner(), ctx, "bash").name;
    const b = runContainerOptions(runner(), ctx, "bash").name;
    expect(a).not.toBe(b);
    expect(a).toMatch(/^mcpbox-s1-code-bash-[0-9a-f]{8}$/);
  });

  it("honours a configured network", () => {
    expect(runContainerOptions(runner({ network: "bridge" }), ctx, "node").HostConfig!.NetworkMode).toBe("bridge");
  });
});

describe("runContainerOptions runtime", () => {
  it("gives the run containers the code runner's runtime (gvisor: runsc)", () => {
    const g = runContainerOptions(runner({ runtime: "gvisor" }), ctx, "python").HostConfig!;
    expect(g.Runtime).toBe("runsc");
    expect(g.Init).toBe(false); // docker-init under runsc takes the launcher's child (measured)
    expect(runContainerOptions(runner(), ctx, "python").HostConfig?.Init).toBe(true);
    expect(runContainerOptions(runner(), ctx, "python").HostConfig).not.toHaveProperty("Runtime");
  });

  it("bounds a gVisor run's processes with gVisor's own nproc, the engine's pids limit above the sandbox's threads", () => {
    const g = runContainerOptions(runner({ runtime: "gvisor", limits: { pids: 64 } }), ctx, "bash").HostConfig!;
    expect(g.Ulimits).toContainEqual({ Name: "nproc", Soft: 64, Hard: 64 });
    expect(g.Ulimits).toContainEqual({ Name: "nofile", Soft: 8192, Hard: 8192 });
    expect(g.PidsLimit).toBeGreaterThan(45 + 8 * 64); // an idle sandbox's host threads plus ~8 per process (measured)
    const r = runContainerOptions(runner({ limits: { pids: 64 } }), ctx, "bash").HostConfig!;
    expect(r.PidsLimit).toBe(64); // runc: the pids cgroup counts the run's own processes
    expect(r.Ulimits).toContainEqual({ Name: "nproc", Soft: 8192, Hard: 8192 });
  });
});
