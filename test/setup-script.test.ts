/**
 * scripts/setup.sh, which `npm run main` and `npm test` run first (their npm pre-hooks) and .ci/run runs too.
 * As root here, with everything present: a line per step and nothing installed. As a user who may not use the
 * engine (nobody, prepared with setpriv when we are root; otherwise this user with an engine address that does not
 * answer): exit 1 within seconds, nothing slow started, the exact command to run. The install paths (apt-get,
 * dockerd, debootstrap) run against fakes in scripts/ci/test-lib.sh, which this test runs as well.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/gateway.ts";
import { publicDir } from "./helpers/public.ts";

const SETUP = path.join(REPO, "scripts/setup.sh");
const env = { ...process.env, MCPBOX_SETUP_DONE: "" };

describe("scripts/setup.sh", () => {
  it("with everything present: one line per step, exit 0, quick", () => {
    const started = Date.now();
    const r = spawnSync("bash", [SETUP, "test"], { encoding: "utf8", env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/setup: Docker engine answers/);
    expect(r.stdout).toMatch(/setup: present: tmux git (\S+ )*the CA bundle \/etc\/ssl\/certs\/ca-certificates.crt/);
    expect(r.stdout).toMatch(/setup: base images present: node:24-bookworm-slim python:3.12-slim-bookworm/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("as a user who cannot use the engine: stops at once with the command to run, exit 1", () => {
    const root = process.getuid?.() === 0;
    // nobody cannot read a private clone (mktemp -d): it runs a copy of the scripts in a public folder
    const copy = publicDir("setup");
    for (const f of ["scripts/setup.sh", "scripts/ci/lib.sh"]) fs.cpSync(path.join(REPO, f), path.join(copy, f));
    const started = Date.now();
    const r = root
      ? spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "bash", path.join(copy, "scripts/setup.sh"), "main"], { encoding: "utf8", env, cwd: "/" })
      : spawnSync("bash", [SETUP, "main"], { encoding: "utf8", env: { ...env, DOCKER_HOST: "unix:///nonexistent/docker.sock" } });
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(/setup: as \S+, nothing slow was started; first:/);
    expect(r.stderr).toMatch(root ? /let nobody use the engine: sudo usermod -aG docker nobody/ : /start the Docker engine/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("passes its self-test of the install paths (fake apt-get, dockerd and base-image builder)", () => {
    const r = spawnSync("bash", [path.join(REPO, "scripts/ci/test-lib.sh")], { encoding: "utf8", env });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^all \d+ checks passed$/m);
  });
});
