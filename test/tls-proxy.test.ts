/**
 * A TLS-intercepting proxy, for real: on these machines TLS from containers to registry.npmjs.org is re-signed by a
 * proxy with its own CA (ENVIRONMENT.md). `doctor` flags it and names the host bundle for build.caCerts, and passes
 * once build.caCerts is given; a node-template build without it fails within seconds (not npm's 70 s of retries)
 * with that hint, in `build` and in the build that `tools` starts. The only external host reached is the npm registry.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpboxCommand, project, type TestProject } from "./helpers/gateway.ts";

const HOST_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
const RUN = crypto.randomBytes(3).toString("hex");
const SERVER = `tls${RUN}`; // a tag of this run's own: never an image another run built
const PACKAGE = "@modelcontextprotocol/server-memory@2026.8.31";
const HINT = `a TLS proxy intercepts downloads: set build: { caCerts: "${HOST_BUNDLE}" } in the config (this machine's CA bundle), or pass --ca-cert ${HOST_BUNDLE}; \`mcpbox doctor\` checks it`;
const projects: TestProject[] = [];

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function mcpbox(p: TestProject, args: string[]): Result {
  const { command, args: pre } = mcpboxCommand();
  const started = performance.now();
  const r = spawnSync(command, [...pre, ...args, "-c", p.config], {
    cwd: p.dir,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: "1", MCPBOX_HOME: p.home, CI: "true" },
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - started };
}

function templateProject(build: Record<string, unknown>): TestProject {
  const p = project({ [SERVER]: { template: "node", package: PACKAGE } }, { build });
  projects.push(p);
  return p;
}

const tlsCheckOf = (r: Result) => JSON.parse(r.stdout).checks.find((c: { name: string }) => c.name === "TLS for builds");

afterAll(() => {
  for (const p of projects) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("a TLS-intercepting proxy between builds and the npm registry", () => {
  it("has the host bundle this machine trusts the proxy with (a precondition)", () => {
    expect(fs.existsSync(HOST_BUNDLE)).toBe(true);
  });

  it("is flagged by `doctor`, which names the host bundle for build.caCerts", () => {
    const r = mcpbox(templateProject({}), ["doctor", "--json"]);
    expect(r.code).toBe(1);
    expect(tlsCheckOf(r)).toEqual({
      name: "TLS for builds",
      status: "fail",
      message: `TLS to https://registry.npmjs.org/ is intercepted: a proxy re-signs it with a CA that builds do not trust (SELF_SIGNED_CERT_IN_CHAIN); ${SERVER} will not build`,
      fix: `set build: { caCerts: "${HOST_BUNDLE}" } in the config (this machine's CA bundle, which trusts the proxy), or pass --ca-cert ${HOST_BUNDLE} to mcpbox build`,
    });
  });

  it("passes `doctor` once build.caCerts is given", () => {
    const r = mcpbox(templateProject({ caCerts: HOST_BUNDLE }), ["doctor", "--json"]);
    expect(tlsCheckOf(r)).toEqual({
      name: "TLS for builds",
      status: "ok",
      message: `a build reaches https://registry.npmjs.org/ with build.caCerts ${HOST_BUNDLE} (HTTP 200)`,
      fix: null,
    });
  });

  it("fails a template build without build.caCerts within 15 s, with the hint once", () => {
    const r = mcpbox(templateProject({}), ["build"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.ms).toBeLessThan(15_000);
    expect(r.stderr).toMatch(new RegExp(`error: building ${SERVER} failed at step \\d+/\\d+: RUN `));
    expect(r.stderr).toContain("SELF_SIGNED_CERT_IN_CHAIN");
    expect(r.stderr).toContain(`hint: ${HINT}\n`);
    expect((r.stdout + r.stderr).split(HINT).length - 1).toBe(1);
  });

  it("fails the build that `tools` starts just as fast, with the hint in the server's error", () => {
    const r = mcpbox(templateProject({}), ["tools", "--json"]);
    expect(r.ms).toBeLessThan(15_000);
    const failed = JSON.parse(r.stdout).failed as { server: string; error: string }[];
    expect(failed).toEqual([expect.objectContaining({ server: SERVER, error: expect.stringContaining(`; fix: ${HINT}`) })]);
    expect(r.stderr.split(HINT).length - 1, r.stderr).toBe(1);
    expect(r.stderr).toContain("SELF_SIGNED_CERT_IN_CHAIN");
  });

  it("is mentioned in `mcpbox init`'s scaffold (build.caCerts, commented), which validates as written", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-init-ca-"));
    try {
      const { command, args: pre } = mcpboxCommand();
      const env = { ...process.env, NO_COLOR: "1", MCPBOX_HOME: path.join(dir, ".home") };
      const init = spawnSync(command, [...pre, "init", dir], { cwd: dir, encoding: "utf8", env });
      expect(init.status, init.stderr).toBe(0);
      const text = fs.readFileSync(path.join(dir, "sandbox.config.ts"), "utf8");
      expect(text).toContain(`  // build: { caCerts: "${HOST_BUNDLE}" },\n`);
      expect(text).toContain("`mcpbox doctor` tells you");
      fs.mkdirSync(path.join(dir, "workspace"), { recursive: true });
      const validate = spawnSync(command, [...pre, "validate"], { cwd: dir, encoding: "utf8", env });
      expect(validate.status, validate.stdout + validate.stderr).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
