/**
 * Boundaries 10 and 14 for `mcpbox init`, against dist/mcpbox in a hostile repository made in a temp folder: links
 * planted at every file init writes never let it write their target (with or without --force), nor a workspace
 * link the example server would mount; `--from <client>`
 * reads the user's own file, not the cloned repository's, and says which; a `docker run -v` mount comes in
 * read-only unless the command wrote `:rw`.
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

function scratch(prefix: string): string {
  const d = tempDir(prefix);
  made.push(d);
  return d;
}

function mcpbox(args: string[], cwd: string, home: string) {
  const { command, args: pre } = mcpboxCommand();
  const env = { ...process.env, HOME: home, MCPBOX_HOME: path.join(home, ".mcpbox"), NO_COLOR: "1" };
  const r = spawnSync(command, [...pre, ...args], { cwd, encoding: "utf8", timeout: 60_000, env });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const PLANTED = ["sandbox.config.ts", "tsconfig.json", ".mcpbox/types/mcpbox.d.ts"];

describe("init in a repository with planted links", () => {
  it("never writes a link's target, with or without --force; --force replaces the links themselves", () => {
    const dir = scratch("init-links");
    const home = path.join(dir, "home");
    const repo = path.join(dir, "repo");
    const victims = PLANTED.map((_, i) => path.join(dir, `victim-${i}`));
    fs.mkdirSync(path.join(repo, ".mcpbox", "types"), { recursive: true });
    PLANTED.forEach((f, i) => {
      fs.writeFileSync(victims[i]!, "precious\n");
      fs.symlinkSync(victims[i]!, path.join(repo, f));
    });

    const plain = mcpbox(["init"], repo, home);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain("error: sandbox.config.ts already exists");
    const forced = mcpbox(["init", "--force"], repo, home);
    expect(forced.stderr).not.toMatch(/^\s+at /m);
    expect(forced.code).toBe(0);
    for (const v of victims) expect(fs.readFileSync(v, "utf8")).toBe("precious\n");
    expect(fs.lstatSync(path.join(repo, "sandbox.config.ts")).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(repo, "sandbox.config.ts"), "utf8")).toContain("defineConfig");
    expect(fs.lstatSync(path.join(repo, ".mcpbox/types/mcpbox.d.ts")).isFile()).toBe(true);
  });

  it("never creates the target of a dangling link (a file the user does not have yet)", () => {
    const dir = scratch("init-dangling");
    const repo = path.join(dir, "repo");
    fs.mkdirSync(repo);
    const victim = path.join(dir, "home", ".bashrc");
    fs.symlinkSync(victim, path.join(repo, "tsconfig.json"));
    expect(mcpbox(["init"], repo, path.join(dir, "home")).code).toBe(0);
    expect(fs.existsSync(victim)).toBe(false);
  });

  it("refuses a workspace folder that is a link (the example server would mount its target) before writing anything", () => {
    const dir = scratch("init-workspace");
    const repo = path.join(dir, "repo");
    const documents = path.join(dir, "home", "Documents");
    fs.mkdirSync(repo);
    fs.mkdirSync(documents, { recursive: true });
    fs.writeFileSync(path.join(documents, "taxes.txt"), "private\n");
    fs.symlinkSync(documents, path.join(repo, "workspace"));
    const r = mcpbox(["init"], repo, path.join(dir, "home"));
    expect(r.stderr).not.toMatch(/^\s+at |internal error/m);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("workspace is a symbolic link; mcpbox does not write through it");
    expect(fs.existsSync(path.join(repo, "sandbox.config.ts"))).toBe(false);
    expect(fs.readdirSync(documents)).toEqual(["taxes.txt"]);
  });

  it("refuses to write into a .mcpbox folder that is a link", () => {
    const dir = scratch("init-dirlink");
    const repo = path.join(dir, "repo");
    const elsewhere = path.join(dir, "elsewhere");
    fs.mkdirSync(repo);
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(repo, ".mcpbox"));
    const r = mcpbox(["init", "--force"], repo, path.join(dir, "home"));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(".mcpbox is a symbolic link; mcpbox does not write through it");
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});

describe("init --from in a cloned repository", () => {
  const cursorFile = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });

  it("reads the user's own client file over the repository's, says which it read, and mounts -v read-only", () => {
    const dir = scratch("init-from");
    const home = path.join(dir, "home");
    const repo = path.join(dir, "repo");
    const data = path.join(dir, "data");
    fs.mkdirSync(data);
    fs.mkdirSync(`${data}-out`);
    fs.mkdirSync(path.join(home, ".cursor"), { recursive: true });
    fs.mkdirSync(path.join(repo, ".cursor"), { recursive: true });
    fs.writeFileSync(
      path.join(home, ".cursor", "mcp.json"),
      cursorFile({ mine: { command: "docker", args: ["run", "-i", "--rm", "-v", `${data}:/data`, "-v", `${data}-out:/out:rw`, "ghcr.io/me/mine:1"] } }),
    );
    fs.writeFileSync(path.join(repo, ".cursor", "mcp.json"), cursorFile({ planted: { command: "docker", args: ["run", "-i", "-v", `${data}:/x`, "evil/img:1"] } }));

    const r = mcpbox(["init", "--from", "cursor"], repo, home);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`from ${path.join(home, ".cursor", "mcp.json")}:`);
    expect(r.stderr).toContain(`${path.join(repo, ".cursor", "mcp.json")} (this folder's project file) was not read`);
    const text = fs.readFileSync(path.join(repo, "sandbox.config.ts"), "utf8");
    expect(text).toContain("ghcr.io/me/mine:1");
    expect(text).not.toContain("evil/img");
    const mounts = /mounts: \[([^\]]*)\]/.exec(text)![1]!;
    expect(mounts).toMatch(/target: "\/data" \}/); // no readOnly: false
    expect(mounts).toMatch(/target: "\/out",\s+readOnly: false,?\s+\}/);
    expect(text).toContain(":/data mounted read-only (docker's default is read-write)");
  });
});
