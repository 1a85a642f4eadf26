import { describe, expect, it } from "vitest";
import { parseSize, resolveConfig, configHash, hostPath } from "./resolve.ts";
import { UserConfigSchema } from "./schema.ts";

const resolve = (raw: unknown) => resolveConfig(UserConfigSchema.parse(raw), "/cfg/sandbox.config.ts");

describe("resolveConfig (SPEC 2.2 defaults)", () => {
  it("fills every default", () => {
    const [s] = resolve({ servers: { a: { image: "x" } } }).servers;
    expect(s).toMatchObject({
      name: "a",
      source: { kind: "image", image: "x" },
      network: "none",
      limits: { memory: "512m", memoryBytes: 512 * 1024 ** 2, cpus: 1, pids: 256, tmpfs: "64m" },
      user: "1000:1000",
      readOnlyRoot: true,
      tools: { allow: undefined, deny: [] },
      approve: [],
      timeouts: { startupMs: 60000, callMs: 120000 },
      prefix: "a",
      startup: "eager",
      restart: "on-failure",
      dangerous: { allowRoot: false, allowHostNetwork: false, allowDockerSocket: false, allowSensitiveMounts: false },
    });
  });

  it("merges servers over defaults", () => {
    const cfg = resolve({
      defaults: { limits: { memory: "1g", cpus: 2 }, network: "bridge", mounts: [{ source: "shared", target: "/shared" }] },
      servers: { a: { image: "x", limits: { cpus: 0.5 }, mounts: [{ source: "/abs", target: "/abs", readOnly: false }], prefix: false } },
    });
    const s = cfg.servers[0]!;
    expect(s.limits).toMatchObject({ memory: "1g", cpus: 0.5 });
    expect(s.network).toBe("bridge");
    expect(s.prefix).toBeNull();
    expect(s.mounts).toEqual([
      { source: "/cfg/shared", target: "/shared", readOnly: true },
      { source: "/abs", target: "/abs", readOnly: false },
    ]);
  });

  it("resolves sources and paths against the config folder", () => {
    const cfg = resolve({
      build: { caCerts: "certs.pem" },
      servers: {
        t: { template: "python", package: "pkg==1.0" },
        b: { build: { context: "./srv" } },
        c: { builtin: "code-runner" },
      },
    });
    expect(cfg.servers.map((s) => s.source)).toEqual([
      { kind: "template", template: "python", package: "pkg==1.0" },
      { kind: "build", context: "/cfg/srv", dockerfile: "Dockerfile", args: {} },
      { kind: "builtin", builtin: "code-runner" },
    ]);
    expect(cfg.servers[2]!.languages).toEqual(["python", "node", "bash"]);
    expect(cfg.build.caCerts).toBe("/cfg/certs.pem");
  });

  it("is read-only", () => {
    const cfg = resolve({ servers: { a: { image: "x" } } });
    expect(Object.isFrozen(cfg)).toBe(true);
    expect(Object.isFrozen(cfg.servers[0])).toBe(true);
  });

  it("hashes independently of key order", () => {
    expect(configHash({ a: 1, b: { c: 2, d: 3 } })).toBe(configHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(configHash({ a: 1 })).not.toBe(configHash({ a: 2 }));
  });

  it("parses sizes", () => {
    expect(parseSize("512m")).toBe(536870912);
    expect(parseSize("1g")).toBe(1073741824);
    expect(parseSize("64k")).toBe(65536);
    expect(parseSize("100")).toBe(100);
  });

  it("expands ~", () => {
    expect(hostPath("/cfg", "~/x", "/home/u")).toBe("/home/u/x");
    expect(hostPath("/cfg", "../x", "/home/u")).toBe("/x");
  });
});

describe("timeouts", () => {
  it("refuses a timeout longer than a timer can wait (it would fire at once), and takes the longest one that can", () => {
    const parsed = UserConfigSchema.safeParse({ servers: { a: { image: "x", timeouts: { callMs: 2 ** 31 } } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ["servers", "a", "timeouts", "callMs"], message: expect.stringContaining("at most 2147483647 ms") });
    expect(resolve({ servers: { a: { image: "x", timeouts: { callMs: 2 ** 31 - 1 } } } }).servers[0]!.timeouts.callMs).toBe(2 ** 31 - 1);
  });
});
