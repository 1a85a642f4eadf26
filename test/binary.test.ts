/**
 * dist/mcpbox end to end: the binary copied alone into an empty folder (no Node.js, no node_modules) loads a
 * TypeScript config that imports "mcpbox" and a relative module, reports every kind of bad config as
 * `<file>: <dotted.path>: <message>` without a stack trace, and runs in a container that has no node at all.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BAD_CONFIGS, GOOD_CONFIG } from "./fixtures/binary/configs.ts";

const REPO = path.resolve(import.meta.dirname, "..");
const DIST = path.join(REPO, "dist", "mcpbox");
const COMMANDS = ["init", "validate", "build", "serve", "tools", "config", "monitor", "ps", "doctor", "schema"];
const STACK_LINE = /^\s+at /m;

let tmp: string;
let bin: string;
let home: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A minimal environment: no PATH to any node, a private HOME and MCPBOX_HOME. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: "/nonexistent", HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), TMPDIR: tmp, NO_COLOR: "1", ...extra };
}

function run(args: string[], cwd = tmp, extra: Record<string, string> = {}): Result {
  const r = spawnSync(bin, args, { cwd, env: env(extra), encoding: "utf8", timeout: 60_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A folder under tmp holding these files (paths relative to it). */
function project(name: string, files: Record<string, string>, dirs: string[] = []): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const d of dirs) fs.mkdirSync(path.join(dir, d), { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

beforeAll(() => {
  if (!fs.existsSync(DIST)) throw new Error("dist/mcpbox does not exist: run `npm run build` first");
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-binary-")));
  for (let dir = tmp; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "node_modules"))) throw new Error(`${dir} has node_modules: the test needs a clean folder`);
  }
  bin = path.join(tmp, "mcpbox");
  fs.copyFileSync(DIST, bin);
  fs.chmodSync(bin, 0o755);
  home = path.join(tmp, "home");
  fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("the binary alone", () => {
  it("prints its version, the package's", () => {
    const r = run(["--version"]);
    expect(r.code).toBe(0);
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string };
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("prints help for the program and every command", () => {
    const top = run(["--help"]);
    expect(top.code).toBe(0);
    for (const cmd of COMMANDS) expect(top.stdout).toContain(cmd);
    for (const cmd of COMMANDS) {
      const r = run([cmd, "--help"]);
      expect({ cmd, code: r.code }).toEqual({ cmd, code: 0 });
      expect(r.stdout).toContain(`mcpbox ${cmd}`);
    }
  });

  it("exits 2 on an unknown command or flag, without a stack trace", () => {
    for (const args of [["bogus"], ["--bogus"], ["validate", "--bogus"]]) {
      const r = run(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/unknown/);
      expect(r.stderr).not.toMatch(STACK_LINE);
    }
  });

  it("validates a TypeScript config importing \"mcpbox\" and relative modules", () => {
    const dir = project("good", GOOD_CONFIG, ["data", "cache"]);
    const r = run(["validate"], dir);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/sandbox\.config\.ts is valid: 3 servers/);
  });

  it("validates the same config through jiti (MCPBOX_CONFIG_LOADER=jiti)", () => {
    const dir = path.join(tmp, "good");
    const r = run(["validate"], dir, { MCPBOX_CONFIG_LOADER: "jiti" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/is valid: 3 servers/);
  });

  it("loads the config with Node's own type stripping inside the binary, and with jiti when asked", () => {
    const probe = `import { x } from "./other";
const ts: string = String(process.features.typescript);
throw new Error(\`probe ts=\${ts} cjs=\${typeof __filename} x=\${x}\`);
`;
    const dir = project("probe", { "sandbox.config.ts": probe, "other.ts": "export const x: number = 1;\n" });
    expect(run(["validate"], dir).stderr).toContain("probe ts=strip cjs=undefined x=1");
    expect(run(["validate"], dir, { MCPBOX_CONFIG_LOADER: "jiti" }).stderr).toContain("probe ts=strip cjs=string x=1");
  });

  it("scaffolds a project from its embedded templates (init), which then validates", () => {
    const dir = project("init", {});
    const init = run(["init"], dir);
    expect(init.code, init.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, "sandbox.config.ts"), "utf8")).toContain('from "mcpbox"');
    const r = run(["validate"], dir);
    expect(r.code, r.stderr).toBe(0);
  });

  it("prints one JSON document with validate --json", () => {
    const good = run(["validate", "--json"], path.join(tmp, "good"));
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ valid: true, servers: ["files", "memory", "web"] });
    const dir = project("bad-json", { "sandbox.config.ts": BAD_CONFIGS.find((c) => c.name === "root user")!.config });
    const bad = run(["validate", "--json"], dir);
    expect(bad.code).toBe(1);
    const doc = JSON.parse(bad.stdout) as { valid: boolean; problems: { path: string; severity: string }[] };
    expect(doc.valid).toBe(false);
    expect(doc.problems).toContainEqual(expect.objectContaining({ path: "servers.a.user", severity: "error" }));
  });
});

describe("bad configs through the binary", () => {
  for (const c of BAD_CONFIGS) {
    it(`${c.name}: exit 1, names the file${c.path ? " and the dotted path" : ""}, no stack trace`, () => {
      const dir = project(`bad-${c.name.replace(/\W+/g, "-")}`, { "sandbox.config.ts": c.config, ...c.files }, ["data"]);
      const r = run(["validate"], dir);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(STACK_LINE);
      const where = c.path ? `sandbox.config.ts: ${c.path}: ` : "sandbox.config.ts";
      const line = r.stderr.split("\n").find((l) => l.includes(where));
      expect(line, r.stderr).toBeDefined();
      expect(line).toMatch(c.message);
    });
  }
});

describe("the launcher's home", () => {
  it("three processes starting at once on an empty home all run, leaving one compile-cache folder and no chunk files", async () => {
    const mcpboxHome = path.join(tmp, "race-home");
    const start = () =>
      new Promise<number | null>((resolve) => {
        const child = spawn(bin, ["--help"], { env: env({ MCPBOX_HOME: mcpboxHome }), stdio: "ignore" });
        child.on("close", resolve);
      });
    expect(await Promise.all([start(), start(), start()])).toEqual([0, 0, 0]);
    expect(fs.readdirSync(path.join(mcpboxHome, "cache"))).toEqual(["compile"]);
    const entries = fs.readdirSync(path.join(mcpboxHome, "cache", "compile"));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatch(/^v\d+\.\d+\.\d+-/);
    const dir = project("race", GOOD_CONFIG, ["data", "cache"]);
    const r = run(["validate"], dir, { MCPBOX_HOME: mcpboxHome });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  it("runs without writing anything (no temp folder either) when MCPBOX_HOME cannot be written", () => {
    const blocker = path.join(tmp, "not-a-folder");
    fs.writeFileSync(blocker, "");
    const tmpdir = path.join(tmp, "fallback-tmp");
    fs.mkdirSync(tmpdir);
    const r = run(["--help"], tmp, { MCPBOX_HOME: path.join(blocker, "home"), TMPDIR: tmpdir });
    expect(r.code).toBe(0);
    expect(fs.readdirSync(tmpdir)).toEqual([]);
  });

  it("never uses a folder planted in the temp folder under a name it could guess", () => {
    const blocker = path.join(tmp, "not-a-folder-either");
    fs.writeFileSync(blocker, "");
    const tmpdir = path.join(tmp, "shared-tmp");
    const planted = path.join(tmpdir, `mcpbox-${process.getuid!()}`);
    fs.mkdirSync(planted, { recursive: true });
    fs.chmodSync(planted, 0o777);
    const r = run(["--help"], tmp, { MCPBOX_HOME: path.join(blocker, "home"), TMPDIR: tmpdir });
    expect(r.code).toBe(0);
    expect(fs.readdirSync(planted)).toEqual([]);
  });
});

describe("in a container without Node.js", () => {
  const IMAGE = "mcpbox-test/no-node:binary";

  it("validates the config with nothing but the binary and the C libraries", () => {
    const rootfs = path.join(tmp, "rootfs");
    for (const lib of sharedLibraries(bin)) {
      fs.mkdirSync(path.join(rootfs, path.dirname(lib)), { recursive: true });
      fs.copyFileSync(lib, path.join(rootfs, lib));
    }
    fs.mkdirSync(path.join(rootfs, "etc"), { recursive: true });
    // uid 1000 reads root's files; another user's it must own, or discovery rightly stops before them
    const user = process.getuid?.() === 0 ? "1000:1000" : `${process.getuid!()}:${process.getgid!()}`;
    fs.writeFileSync(path.join(rootfs, "etc/passwd"), `root:x:0:0::/root:/nonexistent\nuser:x:${user}::/tmp:/nonexistent\n`);
    fs.mkdirSync(path.join(rootfs, "tmp"), { mode: 0o1777 });
    fs.chmodSync(path.join(rootfs, "tmp"), 0o1777);
    project("container", GOOD_CONFIG, ["data", "cache"]);
    fs.chmodSync(tmp, 0o755); // the container's user may not be the folder's owner
    const tar = execFileSync("tar", ["-C", rootfs, "-c", "."], { maxBuffer: 1 << 30 });
    execFileSync("docker", ["import", "--change", "LABEL mcpbox.test=true", "-", IMAGE], { input: tar, stdio: ["pipe", "ignore", "inherit"] });
    const docker = (...args: string[]) =>
      spawnSync("docker", ["run", "--rm", "--network", "none", "--user", user, "-v", `${tmp}:/w:ro`, "-w", "/w/container", "-e", "HOME=/tmp", "-e", "NO_COLOR=1", IMAGE, ...args], { encoding: "utf8" });
    const noNode = docker("node", "--version");
    expect(noNode.status).not.toBe(0); // the image has no node
    const r = docker("/w/mcpbox", "validate");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/is valid: 3 servers/);
  });

  afterAll(() => {
    spawnSync("docker", ["rmi", "-f", IMAGE], { stdio: "ignore" });
  });
});

/** The absolute paths of the shared libraries a binary loads, as ldd lists them. */
function sharedLibraries(file: string): string[] {
  const out = execFileSync("ldd", [file], { encoding: "utf8" });
  return [...out.matchAll(/(\/\S+) \(0x/g)].map((m) => m[1]!).filter((p) => fs.existsSync(p));
}
