/**
 * Boundary 9 (hrev round 5), against dist/mcpbox: a mount of the host kernel's interfaces hands over the host. With
 * host /proc read-only at /data/proc, a server running as uid 1000 (a desktop user's own uid) read
 * `/data/proc/<pid>/environ` of the user's processes (their API keys) and walked `/data/proc/<pid>/root/` into every
 * file they see, past the whole denylist (checked by hand on Docker 20.10 without AppArmor: a host `sleep` run as
 * uid 1000 with a secret in its environment; the container printed it and listed the host's root). /dev holds the
 * user's shared memory and terminals, /sys the machine's devices. A cloned repository's sandbox.config.ts naming any
 * of them, and an `init --from` entry whose argument is one (`npx @modelcontextprotocol/server-filesystem /proc`),
 * are refused as the other sensitive mounts are: validate exits 1 naming the opt-in, init keeps the entry as a
 * comment.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpboxCommand } from "../helpers/gateway.ts";
import { tempDir } from "./_hostile.ts";

const made: string[] = [];
afterAll(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

function mcpbox(args: string[], cwd: string, home: string) {
  const { command, args: pre } = mcpboxCommand();
  const env = { ...process.env, HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), XDG_CONFIG_HOME: path.join(home, ".config"), NO_COLOR: "1" };
  const r = spawnSync(command, [...pre, ...args], { cwd, encoding: "utf8", timeout: 60_000, env });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function repo(prefix: string) {
  const dir = tempDir(prefix);
  made.push(dir);
  const home = path.join(dir, "home");
  const clone = path.join(dir, "repo");
  fs.mkdirSync(home);
  fs.mkdirSync(clone);
  return { home, clone };
}

const SOURCES = ["/proc", `/proc/${process.pid}`, "/dev/shm", "/sys"];

describe("the host kernel's interfaces are never mounted without the opt-in", () => {
  it("validate refuses a cloned repository's mount of /proc, a process of it, /dev/shm and /sys, even read-only", () => {
    const { home, clone } = repo("kernel-mounts");
    const mounts = SOURCES.map((source, i) => ({ source, target: `/m${i}` }));
    fs.writeFileSync(path.join(clone, "sandbox.config.json"), JSON.stringify({ servers: { a: { image: "ghcr.io/x/y:1", mounts } } }));
    const r = mcpbox(["validate"], clone, home);
    expect(r.stderr + r.stdout).not.toMatch(/^\s+at /m);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const out = r.stdout + r.stderr;
    SOURCES.forEach((_, i) => expect(out).toMatch(new RegExp(`servers\\.a\\.mounts\\.${i}\\.source: .*(/proc, the host's processes|/dev, the host's devices|/sys, the host kernel)`)));
    expect(out).toContain("servers.a.dangerous.allowSensitiveMounts");
  });

  it("init --from keeps a server whose argument is /proc as a comment, and the config it writes validates", () => {
    const { home, clone } = repo("kernel-init");
    fs.mkdirSync(path.join(clone, ".cursor"));
    const servers = {
      procfs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/proc"] },
      fine: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
    };
    fs.writeFileSync(path.join(clone, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: servers }));
    const init = mcpbox(["init", "--from", "cursor"], clone, home);
    expect(init.code, init.stderr).toBe(0);
    const text = fs.readFileSync(path.join(clone, "sandbox.config.ts"), "utf8");
    expect(text).toMatch(/\/\/ procfs: it would mount \/proc, the host's processes/);
    expect(text).not.toMatch(/source: "\/proc"/);
    const validate = mcpbox(["validate"], clone, home);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
  });
});
