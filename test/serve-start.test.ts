/**
 * What `mcpbox serve` reports when it cannot start, now that the engine's ping runs while the config loads (issue 15
 * start cost): an unreachable engine is still one clear error and exit 3, and a bad config is still reported first,
 * alone, with the engine unreachable as well. No engine is used: DOCKER_HOST names a socket that does not exist.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { mcpboxCommand, project, type TestProject } from "./helpers/gateway.ts";

const NO_ENGINE = "unix:///nonexistent-mcpbox-serve-start.sock";
const made: TestProject[] = [];

afterEach(() => {
  for (const p of made.splice(0)) fs.rmSync(p.dir, { recursive: true, force: true });
});

function serve(servers: Record<string, unknown>) {
  const p = project(servers);
  made.push(p);
  const { command, args } = mcpboxCommand();
  return spawnSync(command, [...args, "serve", "-c", p.config], {
    cwd: p.dir,
    env: { ...process.env, DOCKER_HOST: NO_ENGINE, MCPBOX_HOME: p.home, NO_COLOR: "1" },
    input: "",
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("mcpbox serve that cannot start", () => {
  it("names the unreachable engine and how to start one, exit 3, nothing on stdout, no stack trace", () => {
    const r = serve({ a: { image: "x:1" } });
    expect(r.status).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`error: no Docker engine reachable at ${NO_ENGINE}\nhint: start Docker`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("reports a bad config first and alone, though the engine is unreachable too (exit 1)", () => {
    const r = serve({ a: { image: 5 } });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("servers.a.image: expected string, received number");
    expect(r.stderr).not.toContain("Docker engine");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
