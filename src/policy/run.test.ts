import { describe, expect, it } from "vitest";
import { resolvedServer } from "../../test/helpers/servers.ts";
import { resolveConfig } from "../config/resolve.ts";
import { UserConfigSchema } from "../config/schema.ts";
import { containerName, containerOptions, dockerRunArgs } from "./run.ts";

const ctx = { session: "s1", configHash: "abc123", ownerPid: 4242, image: "img:1" };
const MiB = 1024 * 1024;

describe("containerOptions", () => {
  it("applies every hardened default to a default server", () => {
    const o = containerOptions(resolvedServer("files"), ctx, {});
    expect(o).toMatchObject({
      name: "mcpbox-s1-files",
      Image: "img:1",
      User: "1000:1000",
      Tty: false,
      OpenStdin: true,
      StdinOnce: true,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Env: [],
      Labels: {
        "mcpbox.managed": "true",
        "mcpbox.session": "s1",
        "mcpbox.server": "files",
        "mcpbox.owner-pid": "4242",
        "mcpbox.config-hash": "abc123",
      },
    });
    expect(o.Entrypoint).toBeUndefined();
    expect(o.Cmd).toBeUndefined();
    expect(o.HostConfig).toEqual({
      NetworkMode: "none",
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges:true"],
      Init: true,
      Memory: 512 * MiB,
      MemorySwap: 512 * MiB,
      NanoCpus: 1e9,
      PidsLimit: 256,
      Tmpfs: { "/tmp": `rw,noexec,nosuid,nodev,size=${64 * MiB}` },
      Binds: [],
      Ulimits: [
        { Name: "nofile", Soft: 8192, Hard: 8192 },
        { Name: "nproc", Soft: 8192, Hard: 8192 },
      ],
      LogConfig: { Type: "none", Config: {} }, // the gateway attaches; the engine writes no log to the host's disk
    });
    expect(o.HostConfig).not.toHaveProperty("AutoRemove");
  });

  it("follows each policy key", () => {
    const s = resolvedServer(
      "x",
      {
        image: "i",
        network: { network: "corp" },
        limits: { memory: "1g", cpus: 0.5, pids: 32, tmpfs: "8m" },
        user: "1234:1234",
        readOnlyRoot: false,
        mounts: [
          { source: "/srv/a", target: "/a" },
          { source: "/srv/b", target: "/b", readOnly: false },
        ],
        env: { MODE: "x" },
        command: ["node", "--no-warnings", "main.js"],
        args: ["--port", "1"],
      },
      "/",
    );
    const o = containerOptions(s, ctx, { TOKEN: "s3cret" });
    expect(o.HostConfig).toMatchObject({
      NetworkMode: "corp",
      ReadonlyRootfs: false,
      Memory: 1024 * MiB,
      MemorySwap: 1024 * MiB,
      NanoCpus: 5e8,
      PidsLimit: 32,
      Tmpfs: { "/tmp": `rw,noexec,nosuid,nodev,size=${8 * MiB}` },
      Binds: ["/srv/a:/a:ro", "/srv/b:/b:rw"],
    });
    expect(o.User).toBe("1234:1234");
    expect(o.Env).toEqual(["MODE=x", "TOKEN=s3cret"]);
    expect(o.Entrypoint).toEqual(["node"]);
    expect(o.Cmd).toEqual(["--no-warnings", "main.js", "--port", "1"]);
    expect(containerOptions(resolvedServer("b", { image: "i", network: "bridge" }), ctx, {}).HostConfig?.NetworkMode).toBe("bridge");
  });

  it("keeps args alone as Cmd under the image's entrypoint", () => {
    const o = containerOptions(resolvedServer("a", { image: "i", args: ["/data"] }), ctx, {});
    expect(o.Entrypoint).toBeUndefined();
    expect(o.Cmd).toEqual(["/data"]);
  });

  it("joins an allowlisted server to its forwarder's namespace, proxy variables after its own env", () => {
    const s = resolvedServer("gh", { image: "i", network: { allow: ["api.github.com"] }, env: { HTTPS_PROXY: "http://evil:1", A: "1" } });
    expect(containerOptions(s, ctx, {}).HostConfig?.NetworkMode).toBe("none"); // no egress started: no network at all
    const opts = containerOptions(s, ctx, {}, { networkMode: "container:fwd1", env: { HTTPS_PROXY: "http://127.0.0.1:3128", NODE_USE_ENV_PROXY: "1" } });
    expect(opts.HostConfig?.NetworkMode).toBe("container:fwd1");
    expect(opts.Env).toEqual(["HTTPS_PROXY=http://evil:1", "A=1", "HTTPS_PROXY=http://127.0.0.1:3128", "NODE_USE_ENV_PROXY=1"]);
    expect(opts).not.toHaveProperty("Hostname");
    expect(opts.HostConfig).not.toHaveProperty("PortBindings");
  });

  it("makes names Docker accepts", () => {
    expect(containerName("s-1", "my server/é")).toMatch(/^mcpbox-s-1-my-server--$/);
    expect(containerName("x".repeat(40), "y".repeat(100)).length).toBeLessThanOrEqual(7 + 24 + 1 + 64);
  });
});

describe("dockerRunArgs", () => {
  it("mirrors every flag of the default policy", () => {
    expect(dockerRunArgs(resolvedServer("files"), { image: "img:1", configHash: "abc123" })).toEqual([
      "run", "-i", "--rm",
      "--network", "none",
      "--read-only",
      "--user", "1000:1000",
      "--cap-drop", "ALL",
      "--security-opt", "no-new-privileges:true",
      "--init",
      "--log-driver", "none",
      "--memory", "512m", "--memory-swap", "512m",
      "--cpus", "1", "--pids-limit", "256",
      "--tmpfs", `/tmp:rw,noexec,nosuid,nodev,size=${64 * MiB}`,
      "--ulimit", "nofile=8192:8192", "--ulimit", "nproc=8192:8192",
      "--label", "mcpbox.managed=true", "--label", "mcpbox.server=files", "--label", "mcpbox.config-hash=abc123",
      "--", "img:1",
    ]);
  });

  it("passes mounts, env, command and args; secrets by name only", () => {
    const s = resolvedServer(
      "x",
      {
        image: "i",
        readOnlyRoot: false,
        limits: { memory: "1.5g" },
        mounts: [{ source: "/srv/a", target: "/a" }],
        env: { MODE: "x" },
        secrets: { TOKEN: { env: "HOST_TOKEN" } },
        command: ["node", "main.js"],
        args: ["--v"],
      },
      "/",
    );
    const args = dockerRunArgs(s, { image: "i" });
    expect(args).not.toContain("--read-only");
    expect(args).toContain("-v");
    expect(args[args.indexOf("-v") + 1]).toBe("/srv/a:/a:ro");
    expect(args[args.indexOf("--memory") + 1]).toBe(String(1.5 * 1024 * MiB));
    expect(args.join(" ")).toContain("-e MODE=x -e TOKEN");
    expect(args.slice(-6)).toEqual(["--entrypoint", "node", "--", "i", "main.js", "--v"]);
    const opts = containerOptions(s, ctx, { TOKEN: "s3cret-value" });
    expect(opts.Env).toContain("TOKEN=s3cret-value");
    expect(args.join("\0")).not.toContain("s3cret-value");
    expect(args.join("\0")).not.toContain("HOST_TOKEN");
  });

  it("refuses a server with an egress allowlist (no proxy without the gateway)", () => {
    const s = resolvedServer("gh", { image: "i", network: { allow: ["api.github.com"] } });
    expect(() => dockerRunArgs(s, { image: "i" })).toThrow(/servers\.gh\.network: an egress allowlist cannot be enforced/);
  });

  it("puts -- before the image, so no image reference is read as a docker option", () => {
    const args = dockerRunArgs(resolvedServer("x", { image: "i" }), { image: "-v/etc:/x" });
    expect(args.slice(args.indexOf("--"))).toEqual(["--", "-v/etc:/x"]);
    expect(args.filter((a) => a === "--")).toHaveLength(1);
  });
});

describe("runtime", () => {
  const withEngine = (config: Record<string, unknown>) =>
    resolveConfig(UserConfigSchema.parse(config), "/tmp/sandbox.config.ts").servers[0]!;

  it("asks no runtime for runc (the engine's default), runsc for gvisor", () => {
    const plain = resolvedServer("a");
    expect(containerOptions(plain, ctx, {}).HostConfig).not.toHaveProperty("Runtime");
    expect(dockerRunArgs(plain, { image: "i" })).not.toContain("--runtime");
    const g = resolvedServer("g", { image: "i", runtime: "gvisor" });
    expect(containerOptions(g, ctx, {}).HostConfig?.Runtime).toBe("runsc");
    const args = dockerRunArgs(g, { image: "i" });
    expect(args[args.indexOf("--runtime") + 1]).toBe("runsc");
    expect(args.indexOf("--runtime")).toBeLessThan(args.indexOf("--"));
  });

  it("bounds a gVisor server's processes with gVisor's own nproc, the engine's pids limit above the sandbox's threads", () => {
    const g = resolvedServer("g", { image: "i", runtime: "gvisor", limits: { pids: 64 } });
    const h = containerOptions(g, ctx, {}).HostConfig!;
    expect(h.Ulimits).toContainEqual({ Name: "nproc", Soft: 64, Hard: 64 });
    expect(h.Ulimits).toContainEqual({ Name: "nofile", Soft: 8192, Hard: 8192 });
    expect(h.PidsLimit).toBeGreaterThan(45 + 8 * 64); // an idle sandbox's host threads plus ~8 per process (measured)
    const args = dockerRunArgs(g, { image: "i" });
    expect(Number(args[args.indexOf("--pids-limit") + 1])).toBe(h.PidsLimit);
    expect(args).toContain("nproc=64:64");
    const r = resolvedServer("r", { image: "i", limits: { pids: 64 } });
    expect(containerOptions(r, ctx, {}).HostConfig!.PidsLimit).toBe(64); // runc: the pids cgroup counts the processes
    expect(containerOptions(r, ctx, {}).HostConfig!.Ulimits).toContainEqual({ Name: "nproc", Soft: 8192, Hard: 8192 });
    expect(dockerRunArgs(r, { image: "i" })).toContain("nproc=8192:8192");
  });

  it("takes the runtime from defaults and the engine's names from engine.runtimes", () => {
    const s = withEngine({ defaults: { runtime: "gvisor" }, engine: { runtimes: { gvisor: "runsc-kvm" } }, servers: { a: { image: "i" } } });
    expect(s.runtime).toBe("gvisor");
    expect(containerOptions(s, ctx, {}).HostConfig?.Runtime).toBe("runsc-kvm");
    const r = withEngine({ defaults: { runtime: "gvisor" }, engine: { runtimes: { runc: "crun" } }, servers: { a: { image: "i", runtime: "runc" } } });
    expect(containerOptions(r, ctx, {}).HostConfig?.Runtime).toBe("crun");
    expect(dockerRunArgs(r, { image: "i" }).join(" ")).toContain("--runtime crun");
  });
});
