import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { checkRawConfig } from "./zod-check.ts";
import { formatProblem, errorsOf, warningsOf } from "./problems.ts";
import type { CheckEnv } from "./checks.ts";
import { isRootUser, mountDanger } from "./checks.ts";

const home = "/home/ada";
const dir = "/work/project";
const file = path.join(dir, "sandbox.config.ts");
const existing = new Set(["/work/project/data", "/work/project/data/Dockerfile", "/", home, "/etc", `${home}/.ssh`, `${home}/.aws`, "/var/run/docker.sock", "/run", `${home}/code`]);
const env: CheckEnv = { home, exists: (p) => existing.has(p), realpath: (p) => p };

const check = (servers: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  checkRawConfig({ servers, ...extra }, file, env).problems.map((p) => formatProblem("sandbox.config.ts", p));

const image = { image: "mcp/x:1" };

describe("policy checks (SPEC 2.3)", () => {
  it("accepts a plain hardened server", () => {
    expect(check({ a: { ...image, mounts: [{ source: "./data", target: "/data" }] } })).toEqual([]);
  });

  const refusals: [string, Record<string, unknown>, string, Record<string, boolean>][] = [
    ["/", { mounts: [{ source: "/", target: "/h" }] }, "root filesystem", { allowSensitiveMounts: true }],
    ["home", { mounts: [{ source: "~", target: "/h" }] }, "home folder", { allowSensitiveMounts: true }],
    ["/etc", { mounts: [{ source: "/etc", target: "/h" }] }, "/etc", { allowSensitiveMounts: true }],
    ["~/.ssh", { mounts: [{ source: "~/.ssh", target: "/h" }] }, "~/.ssh", { allowSensitiveMounts: true }],
    ["~/.aws", { mounts: [{ source: `${home}/.aws`, target: "/h" }] }, "~/.aws", { allowSensitiveMounts: true }],
    ["docker.sock", { mounts: [{ source: "/var/run/docker.sock", target: "/s" }] }, "engine socket", { allowDockerSocket: true }],
    ["/run", { mounts: [{ source: "/run", target: "/s" }] }, "engine socket", { allowDockerSocket: true }],
    ["host network", { network: "host" }, 'network "host"', { allowHostNetwork: true }],
    ["root user", { user: "root" }, "runs as root", { allowRoot: true }],
    ["uid 0", { user: "0:0" }, "runs as root", { allowRoot: true }],
    ["numeric 0", { user: 0 }, "runs as root", { allowRoot: true }],
  ];
  for (const [name, policy, message, optIn] of refusals) {
    it(`refuses ${name} and names the opt-in`, () => {
      const problems = check({ s: { ...image, ...policy } });
      const line = problems.find((p) => p.includes(message));
      expect(line, problems.join("\n")).toMatch(/^sandbox\.config\.ts: servers\.s\.\w+/);
      expect(line).toContain(`dangerous.${Object.keys(optIn)[0]}`);
    });
    it(`accepts ${name} with its opt-in, as a warning`, () => {
      const r = checkRawConfig({ servers: { s: { ...image, ...policy, dangerous: optIn } } }, file, env);
      expect(errorsOf(r.problems)).toEqual([]);
      expect(warningsOf(r.problems).map((p) => p.message)).toContain("isolation is weakened by this opt-in");
    });
  }

  it("a folder that contains ~/.ssh is refused too", () => {
    expect(mountDanger("/home", home)?.what).toMatch(/^a folder that contains ~\//);
    expect(mountDanger(`${home}/projects`, home, { vars: {} })).toBeUndefined();
    expect(mountDanger(`${home}/code`, home)).toBeUndefined();
  });

  it("reports a missing mount source with the resolved path", () => {
    expect(check({ s: { ...image, mounts: [{ source: "./nope", target: "/n" }] } })).toEqual([
      "sandbox.config.ts: servers.s.mounts.0.source: ./nope does not exist (resolved to /work/project/nope) (create it, or fix the path: relative paths start at the config file's folder)",
    ]);
  });

  it("checks defaults' mounts under defaults", () => {
    const problems = check({ s: image }, { defaults: { mounts: [{ source: "~/.ssh", target: "/k" }] } });
    expect(problems.some((p) => p.startsWith("sandbox.config.ts: defaults.mounts.0.source: mounts ~/.ssh"))).toBe(true);
  });

  it("refuses a non-absolute target and two sources", () => {
    const problems = check({ s: { ...image, template: "node", package: "x@1", mounts: [{ source: "./data", target: "data" }] } });
    expect(problems).toContain('sandbox.config.ts: servers.s.mounts.0.target: must be an absolute path inside the container, e.g. "/data"');
    expect(problems).toContain("sandbox.config.ts: servers.s: has 2 sources (image, template): keep exactly one");
  });

  it("refuses a server with no source", () => {
    expect(check({ s: { args: [] } })[0]).toContain("servers.s: has no source");
  });

  it("unknown keys get a did-you-mean hint, at any depth", () => {
    expect(check({ s: { ...image, monts: [] } })).toContain('sandbox.config.ts: servers.s.monts: unknown key (did you mean "mounts"?)');
    expect(check({ s: { ...image, limits: { memroy: "1g" } } })).toContain(
      'sandbox.config.ts: servers.s.limits.memroy: unknown key (did you mean "memory"?)',
    );
    expect(check({}, { defualts: {} })).toContain('sandbox.config.ts: defualts: unknown key (did you mean "defaults"?)');
  });

  it("wrong types name the path and what was expected", () => {
    const problems = check({ s: { ...image, limits: { cpus: "two", memory: "lots" }, network: "wifi" } });
    expect(problems).toContain('sandbox.config.ts: servers.s.limits.cpus: expected number, received string "two"');
    expect(problems).toContain('sandbox.config.ts: servers.s.limits.memory: must be a size like "512m", "1g" or "64k"');
    expect(problems).toContain('sandbox.config.ts: servers.s.network: must be "none", "bridge", { allow: ["host", ...] } or { network: "<docker network name>" }');
  });

  it("reports two sources even when the server has other schema errors", () => {
    const problems = check({ s: { ...image, template: "node", package: "a@1", monts: [], limits: { cpus: "x" } } });
    expect(problems).toContain("sandbox.config.ts: servers.s: has 2 sources (image, template): keep exactly one");
    expect(problems).toHaveLength(3);
  });

  it("reports schema errors and policy refusals all at once", () => {
    const problems = check({ s: { ...image, monts: [], user: "root", mounts: [{ source: "~/.ssh", target: "/k" }] } });
    expect(problems.length).toBeGreaterThanOrEqual(3);
  });

  it("warns, without failing, on credentials written as literals", () => {
    const r = checkRawConfig(
      { servers: { s: { ...image, env: { GITHUB_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" }, args: ["--api-key=sk-abcdefghijklmnopqrstuvwx"] } } },
      file,
      env,
    );
    expect(errorsOf(r.problems)).toEqual([]);
    expect(warningsOf(r.problems).map((p) => p.path.join("."))).toEqual(["servers.s.env.GITHUB_TOKEN", "servers.s.args.0"]);
  });

  it("warns on a credential given as a build argument (it stays in the image's history)", () => {
    const r = checkRawConfig({ servers: { b: { build: { context: "./data", args: { NPM_TOKEN: "x", VERSION: "1.2.3", KEY: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" } } } } }, file, env);
    expect(errorsOf(r.problems)).toEqual([]);
    const warnings = warningsOf(r.problems).filter((p) => p.path.includes("args"));
    expect(warnings.map((p) => p.path.join("."))).toEqual(["servers.b.build.args.NPM_TOKEN", "servers.b.build.args.KEY"]);
    expect(warnings[0]!.hint).toBe('give it to the server when it runs instead: secrets: { NPM_TOKEN: { env: "NPM_TOKEN" } }');
  });

  it("refuses a key both in env and secrets, and duplicated prefixes", () => {
    expect(check({ s: { ...image, env: { A: "1" }, secrets: { A: { env: "A" } } } })[0]).toContain("servers.s.env.A: A is both");
    expect(check({ a: { ...image, prefix: "x" }, b: { ...image, prefix: "x" } })[0]).toContain(
      'servers.b.prefix: "x" is already the prefix of server "a"',
    );
  });

  it("isRootUser: uid 0 however written", () => {
    expect([0, "0", "00", "+0", " 0", "0 ", "000:0", "0:0", "root", "root:root", "0:1000"].every(isRootUser)).toBe(true);
    expect(["1000", "1000:0", "rooty", 10, "100", "0x0"].some(isRootUser)).toBe(false);
  });

  it("refuses every spelling of root, naming the full opt-in", () => {
    for (const user of ["00", "+0", " 0", "0:0", "root:root", 0]) {
      expect(check({ files: { ...image, user } }), String(user)).toEqual([
        `sandbox.config.ts: servers.files.user: runs as root (${JSON.stringify(user)} is uid 0), which is refused (remove it to run as 1000:1000, or set servers.files.dangerous.allowRoot: true)`,
      ]);
    }
  });

  it("refuses user names other than root and ids Docker cannot hold: a name means what the image says", () => {
    for (const user of ["node", "app:app", "1000:staff", "1000 ", "-1", "4294967296", "1000:1000:1"]) {
      expect(check({ s: { ...image, user } })[0], user).toContain("is not a numeric uid or uid:gid");
    }
    expect(check({ s: { ...image, user: "1000:1000" } })).toEqual([]);
    expect(check({ s: { ...image, user: 65534 } })).toEqual([]);
  });

  it("refuses the host network in every form, and other containers' network stacks", () => {
    const host = check({ s: { ...image, network: { network: "host" } } });
    expect(host).toEqual([
      `sandbox.config.ts: servers.s.network: network "host" shares the host's network stack, which is refused (use "bridge", or set servers.s.dangerous.allowHostNetwork: true)`,
    ]);
    for (const network of ["container:abc123", { network: "container:db" }]) {
      expect(check({ s: { ...image, network } })[0]).toContain("shares the network stack of another container");
      expect(check({ s: { ...image, network, dangerous: { allowHostNetwork: true } } })).toEqual([
        "sandbox.config.ts: servers.s.dangerous.allowHostNetwork: warning: isolation is weakened by this opt-in",
      ]);
    }
    expect(check({ s: image }, { defaults: { network: { network: "host" } } })[0]).toMatch(/^sandbox\.config\.ts: defaults\.network: network "host"/);
    expect(check({ s: { ...image, network: { network: "-x" } } })[0]).toContain("servers.s.network.network: \"-x\" is not a Docker network name");
    expect(check({ s: { ...image, network: { network: "corp-net_1.x" } } })).toEqual([]);
  });

  it("image references follow Docker's grammar: never a leading -", () => {
    for (const bad of ["-v/etc:/x", "--privileged", "a b", "node:", "x:-y", "Node", "a//b"]) {
      expect(check({ s: { image: bad } })[0], bad).toMatch(/^sandbox\.config\.ts: servers\.s\.image: must be an image reference/);
    }
    for (const good of ["node:24", "ghcr.io/github/github-mcp-server:v1.0.0", "127.0.0.1:5000/a/b", `x@sha256:${"a".repeat(64)}`]) {
      expect(check({ s: { image: good } }), good).toEqual([]);
    }
    expect(check({ s: image }, { build: { baseImages: { node: "-x" } } })[0]).toContain("build.baseImages.node: must be an image reference");
    expect(check({ s: image }, { build: { registry: "--insecure" } })[0]).toContain("build.registry: must be a registry");
  });

  it("refuses control characters in every string and key, once each", () => {
    const problems = check({
      s: {
        template: "node",
        package: "pkg@1\nRUN curl evil",
        command: ["node\u0085"],
        args: ["--a\tb"],
        env: { A: "x\ry" },
        mounts: [{ source: "./data\u001b[2J", target: "/d" }],
        build: undefined,
      },
      b: { build: { context: "./data", args: { V: "1\u007f" } } },
    });
    const at = problems.filter((p) => p.includes("control character")).map((p) => p.split(": ")[1]);
    expect(at).toEqual(["servers.s.package", "servers.s.command.0", "servers.s.args.0", "servers.s.env.A", "servers.s.mounts.0.source", "servers.b.build.args.V"]);
    expect(problems.find((p) => p.includes("servers.s.command.0"))).toContain("U+0085");
    expect(check({ s: { ...image, env: { "A\nB": "x" } } })[0]).toContain("servers.s.env.A\\u000aB: the key contains the control character U+000A");
  });

  it("refuses : and , in mount paths (Docker's bind syntax)", () => {
    expect(check({ s: { ...image, mounts: [{ source: "./data", target: "/d:rw" }] } })[0]).toContain('servers.s.mounts.0.target: /d:rw contains ":"');
  });

  it("hints name the full dotted path of the opt-in", () => {
    expect(check({ files: { ...image, mounts: [{ source: "~/.ssh", target: "/k" }] } })[0]).toContain(
      "set servers.files.dangerous.allowSensitiveMounts: true",
    );
  });

  it("works on the real file system", () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-checks-"));
    fs.mkdirSync(path.join(tmp, "data"));
    const r = checkRawConfig({ servers: { s: { ...image, mounts: [{ source: "data", target: "/d" }] } } }, path.join(tmp, "x.ts"));
    expect(r.problems).toEqual([]);
  });
});

describe("mounts inside a writable mount", () => {
  it("are refused across servers and within one (the writer could swap them for links before the next start)", () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-nest-"));
    fs.mkdirSync(path.join(tmp, "work/reports"), { recursive: true });
    const img = { image: "mcp/x:1" };
    const errors = (servers: Record<string, unknown>) =>
      errorsOf(checkRawConfig({ servers }, path.join(tmp, "x.json")).problems).map((p) => formatProblem("x.json", p));
    expect(errors({ a: { ...img, mounts: [{ source: "work", target: "/w", readOnly: false }] }, b: { ...img, mounts: [{ source: "work/reports", target: "/r" }] } })).toEqual([
      expect.stringMatching(/^x\.json: servers\.b\.mounts\.0\.source: work\/reports lies inside work, which server a may write/),
    ]);
    expect(errors({ a: { ...img, mounts: [{ source: "work", target: "/w", readOnly: false }, { source: "work/reports", target: "/x" }] } })).toHaveLength(1);
    // read-only outer folders, and folders side by side, are fine
    expect(errors({ a: { ...img, mounts: [{ source: "work", target: "/w" }] }, b: { ...img, mounts: [{ source: "work/reports", target: "/r", readOnly: false }] } })).toEqual([]);
  });
});

describe("runtime (SPEC 2.2)", () => {
  it("accepts runc and gvisor, per server and in defaults, and engine.runtimes names", () => {
    expect(check({ a: { ...image, runtime: "gvisor" }, b: { ...image, runtime: "runc" } }, { defaults: { runtime: "gvisor" }, engine: { runtimes: { gvisor: "runsc-kvm", runc: "crun" } } })).toEqual([]);
    expect(check({ code: { builtin: "code-runner", runtime: "gvisor" } })).toEqual([]);
  });

  it("refuses another runtime, naming the two there are", () => {
    expect(check({ a: { ...image, runtime: "kata" } })).toEqual([
      'sandbox.config.ts: servers.a.runtime: must be one of "runc", "gvisor"',
    ]);
    expect(check({ a: image }, { defaults: { runtime: "runsc" } }).join("\n")).toBe('sandbox.config.ts: defaults.runtime: must be one of "runc", "gvisor"');
  });

  it("refuses an engine runtime name that could be read as a flag, and unknown engine keys", () => {
    const problems = check({ a: image }, { engine: { runtimes: { gvisor: "--privileged" }, runtime: {} } });
    expect(problems.join("\n")).toContain('sandbox.config.ts: engine.runtimes.gvisor: must be a runtime name as the engine lists it');
    expect(problems.join("\n")).toMatch(/engine\.runtime\b.*(unknown|not a key|did you mean).*runtimes/i);
  });
});
