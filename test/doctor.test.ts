/**
 * `mcpbox doctor` against the real Docker engine: this is the test that proves the engine works in CI. Also an
 * unreachable engine (exit 3, a clear message, no stack trace), --json, and config problems (exit 1).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { DOCTOR_LABEL } from "../src/docker/probe.ts";
import { publicCopy } from "./helpers/public.ts";

const REPO = path.resolve(import.meta.dirname, "..");
const DIST = path.join(REPO, "dist", "mcpbox");
const STACK_LINE = /^\s+at /m;

let tmp: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** run as this user and group (root only) */
  uid?: number;
  /** the binary to run instead of dist/mcpbox */
  bin?: string;
}

/** The built binary when it exists (npm test builds it first), otherwise the sources with this Node. */
function doctor(args: string[], opts: RunOptions = {}): Result {
  const [cmd, pre] = opts.bin ? [opts.bin, []] : fs.existsSync(DIST) ? [DIST, []] : [process.execPath, [path.join(REPO, "src/cli/main.ts")]];
  const env: NodeJS.ProcessEnv = { ...process.env, MCPBOX_HOME: path.join(tmp, "home"), NO_COLOR: "1", ...opts.env };
  if (!opts.env?.DOCKER_HOST) delete env.DOCKER_HOST;
  const ids = opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.uid };
  const r = spawnSync(cmd, [...pre, "doctor", ...args], { cwd: opts.cwd ?? tmp, env, encoding: "utf8", timeout: 120_000, ...ids });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A run that gets EACCES on the engine's socket: as root, the real socket seen by an unprivileged user (nobody);
 * otherwise a socket of our own with mode 000 (root would ignore the mode).
 */
async function doctorWithoutSocketPermission(): Promise<{ result: Result; socket: string }> {
  if (process.getuid?.() === 0) {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-doctor-nobody-"));
    fs.chmodSync(home, 0o777);
    // nobody cannot reach dist/mcpbox in a private clone (mktemp -d): it runs a copy in a public folder
    const bin = fs.existsSync(DIST) ? publicCopy(DIST) : undefined;
    const result = doctor([], { cwd: home, uid: 65534, bin, env: { HOME: home, MCPBOX_HOME: path.join(home, "home") } });
    fs.rmSync(home, { recursive: true, force: true });
    return { result, socket: "/var/run/docker.sock" };
  }
  const socket = path.join(tmp, "closed.sock");
  const server = net.createServer().listen(socket);
  await new Promise((resolve) => server.once("listening", resolve));
  fs.chmodSync(socket, 0);
  const result = doctor([], { env: { DOCKER_HOST: `unix://${socket}` } });
  server.close();
  return { result, socket };
}

interface DoctorJson {
  ok: boolean;
  checks: { name: string; status: "ok" | "warn" | "fail"; message: string; fix: string | null; data?: Record<string, unknown> }[];
}

const check = (doc: DoctorJson, name: string) => doc.checks.find((c) => c.name === name);

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-doctor-e2e-"));
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("mcpbox doctor", () => {
  it("passes against the real engine: every check but the missing config is ok, exit 0", () => {
    const r = doctor([]);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✓ docker engine +Docker reachable at unix:\/\/\/var\/run\/docker\.sock$/m);
    // no DOCKER_HOST, no context: the system socket, found where discover.ts looks on Linux
    expect(r.stdout).toMatch(/^✓ engine discovery +container engine: Docker Engine at unix:\/\/\/var\/run\/docker\.sock \(from its socket\)$/m);
    expect(r.stdout).toMatch(/^✓ engine version +\S.* \d+\.\d+\S*, API 1\.\d+ /m);
    expect(r.stdout).toMatch(/^✓ socket permissions +\/var\/run\/docker\.sock is readable and writable$/m);
    expect(r.stdout).toMatch(/^✓ base image \(node\) +node:24-bookworm-slim \(\d+ MB\)$/m);
    expect(r.stdout).toMatch(/^✓ base image \(python\) +python:3\.12-slim-bookworm \(\d+ MB\)$/m);
    expect(r.stdout).toMatch(/^! config +no sandbox\.config\.ts found/m);
    expect(r.stdout).toMatch(/^ +fix: run `mcpbox init`/m);
    expect(r.stdout).toMatch(/^✓ MCPBOX_HOME +.*is writable$/m);
    expect(r.stdout).toMatch(/^✓ hardened containers +accepted read-only root, cap-drop ALL/m);
    // the CI registers gVisor (scripts/ci/lib.sh): the engine lists it beside runc
    expect(r.stdout).toMatch(/^✓ runtimes +offered: (\S+, )*runc, runsc \(default runc\)$/m);
    expect(fs.existsSync(path.join(tmp, "home"))).toBe(true);
  });

  it("--json prints one document with every check", () => {
    const r = doctor(["--json"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as DoctorJson;
    expect(doc.ok).toBe(true);
    expect(doc.checks.map((c) => c.name)).toEqual([
      "engine discovery",
      "docker engine",
      "engine version",
      "socket permissions",
      "base image (node)",
      "base image (python)",
      "TLS for builds",
      "config",
      "MCPBOX_HOME",
      "hardened containers",
      "runtimes",
      "egress confinement",
      "egress image",
    ]);
    // no allowlisted server (no config at all): nothing is probed or built for egress
    expect(check(doc, "egress confinement")).toMatchObject({ status: "ok", message: "not needed: no server has a network allowlist" });
    expect(check(doc, "egress image")).toMatchObject({ status: "ok", message: "not needed: no server has a network allowlist" });
    expect(check(doc, "docker engine")).toMatchObject({ status: "ok", fix: null, data: { engine: "Docker" } });
    expect(check(doc, "engine discovery")).toMatchObject({ status: "ok", data: { kind: "docker", host: "unix:///var/run/docker.sock", looked: expect.arrayContaining(["unix:///var/run/docker.sock"]) } });
    expect(check(doc, "runtimes")).toMatchObject({ status: "ok", data: { offered: expect.arrayContaining(["runc", "runsc"]), needed: [], missing: [] } });
    expect(check(doc, "config")).toMatchObject({ status: "warn", fix: expect.stringContaining("mcpbox init") });
    expect(check(doc, "hardened containers")?.status).toBe("ok");
  });

  it("leaves no probe container behind", async () => {
    const left = await engine().listContainers({ all: true, filters: JSON.stringify({ label: [`${DOCTOR_LABEL}=true`] }) });
    expect(left.map((c) => c.Names)).toEqual([]);
  });

  it("checks what egress confinement needs when a server has an allowlist, and leaves no probe behind", async () => {
    const dir = path.join(tmp, "egress-project");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "sandbox.config.json"), JSON.stringify({ servers: { gh: { image: "node:24-bookworm-slim", network: { allow: ["api.github.com"] } } } }));
    const r = doctor(["--json"], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as DoctorJson;
    expect(check(doc, "egress confinement")).toMatchObject({ status: "ok", message: expect.stringMatching(/^accepted NetworkMode container:<id> and a named volume for gh /) });
    expect(check(doc, "egress image")).toMatchObject({ status: "ok", message: expect.stringMatching(/^mcpbox\/egress:\S+ for gh$/) });
    const filters = JSON.stringify({ label: [`${DOCTOR_LABEL}=true`] });
    expect((await engine().listContainers({ all: true, filters })).map((c) => c.Names)).toEqual([]);
    expect(((await engine().listVolumes({ filters })).Volumes ?? []).map((v) => v.Name)).toEqual([]);
  });

  it("says which servers need a runtime the engine lacks, and how to get it (exit 1); a present one is ok", () => {
    const dir = path.join(tmp, "runtime-project");
    fs.mkdirSync(dir, { recursive: true });
    const write = (config: unknown) => fs.writeFileSync(path.join(dir, "sandbox.config.json"), JSON.stringify(config));
    write({ defaults: { runtime: "gvisor" }, servers: { files: { image: "node:24-bookworm-slim" }, plain: { image: "node:24-bookworm-slim", runtime: "runc" } } });
    let r = doctor(["--json"], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(check(JSON.parse(r.stdout) as DoctorJson, "runtimes")).toMatchObject({
      status: "ok",
      message: expect.stringMatching(/; files needs gvisor \(runsc\): present$/),
      data: { needed: [{ server: "files", runtime: "gvisor", engineRuntime: "runsc" }], missing: [] },
    });

    write({ engine: { runtimes: { gvisor: "nosuch" } }, servers: { files: { image: "node:24-bookworm-slim", runtime: "gvisor" } } });
    r = doctor([], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^✗ runtimes +offered: (\S+, )*runc, runsc \(default runc\); missing: files needs gvisor \(nosuch\)$/m);
    expect(r.stdout).toMatch(/fix: register gVisor's runsc with the engine under the name "nosuch", or set engine\.runtimes\.gvisor/);
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
    const doc = JSON.parse(doctor(["--json"], { cwd: dir }).stdout) as DoctorJson;
    expect(check(doc, "runtimes")).toMatchObject({ status: "fail", data: { missing: [{ server: "files", runtime: "gvisor", engineRuntime: "nosuch" }] } });
  });

  it("recognises Podman by name (its Docker API service, scripts/ci/podman.sh)", () => {
    const socket = "/run/mcpbox-podman/podman.sock";
    expect(fs.existsSync(socket), `${socket} is missing: run scripts/ci/podman.sh (as .ci/run does)`).toBe(true);
    const r = doctor(["--json"], { env: { DOCKER_HOST: `unix://${socket}` } });
    const doc = JSON.parse(r.stdout) as DoctorJson;
    expect(check(doc, "docker engine")).toMatchObject({ status: "ok", message: `Podman reachable at unix://${socket}`, data: { engine: "Podman", product: "Podman Engine" } });
    expect(check(doc, "engine version")?.message).toMatch(/^Podman Engine 4\./);
    expect(check(doc, "runtimes")).toMatchObject({ status: "ok", message: expect.stringContaining("Podman lists the runtimes its configuration names") });
  });

  it("exits 3 with a clear message and no stack trace when no engine is reachable", () => {
    const r = doctor([], { env: { DOCKER_HOST: "unix:///nonexistent.sock" } });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^✗ docker engine +no Docker engine reachable at unix:\/\/\/nonexistent\.sock$/m);
    expect(r.stdout).toMatch(/fix: start Docker/);
    expect(r.stdout).toMatch(/^✗ socket permissions +no socket at \/nonexistent\.sock$/m);
    expect(r.stderr).toContain("error: the Docker engine is unusable: no Docker engine reachable at unix:///nonexistent.sock");
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr).not.toContain("internal error");
  });

  it("exits 3 and says to join the docker group when the socket refuses the user", async () => {
    const { result: r, socket } = await doctorWithoutSocketPermission();
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^✗ docker engine +no permission to use the Docker engine at unix:\/\//m);
    expect(r.stdout).toContain(`✗ socket permissions   no permission to use ${socket}`);
    expect(r.stdout).toMatch(/fix: add your user to the docker group \(sudo usermod -aG docker \$USER/);
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
  });

  it("exits 1 when MCPBOX_HOME cannot be written", () => {
    const file = path.join(tmp, "a-file");
    fs.writeFileSync(file, "");
    const r = doctor(["--json"], { env: { MCPBOX_HOME: path.join(file, "home") } });
    expect(r.code, r.stderr).toBe(1);
    const home = check(JSON.parse(r.stdout) as DoctorJson, "MCPBOX_HOME");
    expect(home).toMatchObject({ status: "fail", fix: expect.stringContaining("set MCPBOX_HOME") });
    expect(home?.message).toContain(`${path.join(file, "home")} is not writable: ENOTDIR`);
  });

  it("--json with no engine: ok false, the engine check failed with its fix, exit 3", () => {
    const r = doctor(["--json"], { env: { DOCKER_HOST: "unix:///nonexistent.sock" } });
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout) as DoctorJson;
    expect(doc.ok).toBe(false);
    expect(check(doc, "docker engine")).toMatchObject({ status: "fail", fix: expect.stringContaining("DOCKER_HOST") });
    expect(check(doc, "hardened containers")).toMatchObject({ status: "warn", message: "not checked: the engine is unusable" });
    expect(check(doc, "runtimes")).toMatchObject({ status: "warn", message: "not checked: the engine is unusable" });
  });

  it("exits 1 when the config is invalid or a template server's base image is missing", () => {
    const dir = path.join(tmp, "project");
    fs.mkdirSync(dir, { recursive: true });
    const write = (config: unknown) => fs.writeFileSync(path.join(dir, "sandbox.config.json"), JSON.stringify(config));

    write({ servers: { files: { template: "node", package: "@modelcontextprotocol/server-filesystem@1.0.0", netwrk: "none" } } });
    let r = doctor(["--json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    let doc = JSON.parse(r.stdout) as DoctorJson;
    expect(check(doc, "config")).toMatchObject({ status: "fail", fix: expect.stringContaining("mcpbox validate") });
    expect(check(doc, "config")?.message).toContain("servers.files");

    write({
      build: { baseImages: { node: "mcpbox-doctor-test/absent:1" } },
      servers: { files: { template: "node", package: "@modelcontextprotocol/server-filesystem@1.0.0" } },
    });
    r = doctor(["--json"], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    doc = JSON.parse(r.stdout) as DoctorJson;
    expect(check(doc, "config")?.status).toBe("ok");
    expect(check(doc, "base image (node)")).toEqual({
      name: "base image (node)",
      status: "fail",
      message: "mcpbox-doctor-test/absent:1 is not present locally, needed by files",
      fix: "docker pull mcpbox-doctor-test/absent:1, or set build.baseImages.node to an image you have",
    });
    expect(check(doc, "hardened containers")?.status).toBe("ok");
  });
});
