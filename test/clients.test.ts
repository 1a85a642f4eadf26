/**
 * `mcpbox config` and `mcpbox init --from` end to end, through the CLI: every client in both modes writes a file
 * with no secret value in it; --write merges, backs up once and is idempotent; an unparseable file is left alone
 * with exit 1; realistic Claude Desktop, Cursor and VS Code files convert into configs that pass `mcpbox validate`.
 * Runs the sources with this Node (direct mode asks the real Docker engine for the base image ids of content tags).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CLIENTS } from "../src/clients/registry.ts";
import { convertClientConfig } from "../src/clients/import/index.ts";
import { CLAUDE_DESKTOP, CURSOR, VSCODE, FIXTURE_DIRS, FIXTURE_FILES, SECRET_VALUES } from "./fixtures/clients/files.ts";

const REPO = path.resolve(import.meta.dirname, "..");
const MAIN = path.join(REPO, "src", "cli", "main.ts");
const STACK_LINE = /^\s+at /m;
const TOKEN = `tok-${process.pid}-${Date.now()}-unique-secret-value`;
const PAT = `ghp_${"Z".repeat(20)}${process.pid}unique`;

let tmp: string;
let home: string;
let project: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function mcpbox(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Result {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, NO_COLOR: "1", GITHUB_TOKEN: TOKEN, GITHUB_PERSONAL_ACCESS_TOKEN: PAT, ...opts.env };
  delete env.XDG_CONFIG_HOME;
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: opts.cwd ?? project, env, encoding: "utf8", timeout: 120_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const CONFIG = `import { defineConfig } from "mcpbox";

export default defineConfig({
  servers: {
    files: {
      template: "node",
      package: "@modelcontextprotocol/server-filesystem@2026.8.31",
      args: ["/data"],
      mounts: [{ source: "./reports", target: "/data" }],
    },
    github: {
      image: "ghcr.io/github/github-mcp-server:v1.0.0",
      secrets: { GITHUB_PERSONAL_ACCESS_TOKEN: { env: "GITHUB_TOKEN" } },
      network: "bridge",
    },
  },
});
`;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-clients-")));
  home = path.join(tmp, "home");
  project = path.join(tmp, "project");
  fs.mkdirSync(path.join(project, "reports"), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(project, "sandbox.config.ts"), CONFIG);
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("mcpbox config", () => {
  it("prints only the snippet on stdout, notes on stderr", () => {
    const r = mcpbox(["config", "vscode"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { servers: Record<string, { type: string; args: string[]; env: Record<string, string> }> };
    expect(Object.keys(doc.servers)).toEqual(["mcpbox"]);
    expect(doc.servers.mcpbox!.args.slice(-3)).toEqual(["serve", "-c", path.join(project, "sandbox.config.ts")]);
    expect(doc.servers.mcpbox!.env).toEqual({ GITHUB_TOKEN: "${env:GITHUB_TOKEN}" });
    const claude = mcpbox(["config", "claude-desktop"]);
    expect(JSON.parse(claude.stdout)).toHaveProperty("mcpServers.mcpbox");
    expect(claude.stderr).toMatch(/GITHUB_TOKEN will not reach mcpbox: use a file secret/);
    expect(mcpbox(["config", "zed"]).stderr).toMatch(/Zed must be started with GITHUB_TOKEN in its environment/);
  });

  it("writes no secret value into any client's file, in either mode", async () => {
    // in-process for speed (26 runs); the CLI path is the same run() and is exercised by the other tests
    const { run } = await import("../src/cli/commands/config.ts");
    const saved = { ...process.env };
    const stderr: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    Object.assign(process.env, { GITHUB_TOKEN: TOKEN, GITHUB_PERSONAL_ACCESS_TOKEN: PAT });
    try {
      for (const mode of ["gateway", "direct"]) {
        for (const client of CLIENTS) {
          const ext = client.format === "toml" ? "toml" : client.format === "yaml" ? "yaml" : "json";
          const file = path.join(tmp, "secrets", mode, `${client.name}.${ext}`);
          const options = { mode, write: true, file };
          expect(await run({ configPath: undefined, cwd: project, options }, client.name)).toBe(0);
          const text = fs.readFileSync(file, "utf8");
          for (const secret of [TOKEN, PAT]) expect(text, `${client.name} ${mode}`).not.toContain(secret);
          if (mode === "direct") expect(text).toContain("GITHUB_PERSONAL_ACCESS_TOKEN");
          else if (client.envRef || client.name === "codex") expect(text).toContain("GITHUB_TOKEN");
        }
      }
    } finally {
      spy.mockRestore();
      process.env = saved;
    }
    for (const secret of [TOKEN, PAT]) expect(stderr.join("")).not.toContain(secret);
    expect(fs.readdirSync(path.join(tmp, "secrets", "gateway"))).toHaveLength(13);
    expect(fs.readdirSync(path.join(tmp, "secrets", "direct"))).toHaveLength(13);
    const direct = mcpbox(["config", "cursor", "--mode", "direct"]);
    expect(direct.code, direct.stderr).toBe(0);
    for (const secret of [TOKEN, PAT]) expect(direct.stdout + direct.stderr).not.toContain(secret);
    expect(direct.stdout).toMatch(/"-e",\s*"GITHUB_PERSONAL_ACCESS_TOKEN"/);
    expect(direct.stdout).toMatch(/mcpbox\/files:[0-9a-f]{12}/);
  });

  it("merges into an existing file: others kept, one backup, a second run changes nothing", () => {
    const file = path.join(tmp, "merge", "mcp.json");
    const before = `{
  // my own servers
  "servers": {
    "memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }
  },
  "inputs": []
}
`;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, before);
    const first = mcpbox(["config", "vscode", "--write", "--file", file]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/updated .*mcp\.json \(mcpbox\)/);
    const after = fs.readFileSync(file, "utf8");
    expect(after).toContain("// my own servers");
    expect(after).toContain('"memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }');
    expect(after).toContain('"inputs": []');
    const backups = fs.readdirSync(path.dirname(file)).filter((f) => /^mcp\.json\.mcpbox-backup-\d{8}-\d{6}$/.test(f));
    expect(backups).toHaveLength(1);
    expect(fs.readFileSync(path.join(path.dirname(file), backups[0]!), "utf8")).toBe(before);

    const second = mcpbox(["config", "vscode", "--write", "--file", file]);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/nothing changed/);
    expect(fs.readFileSync(file, "utf8")).toBe(after);
    expect(fs.readdirSync(path.dirname(file))).toHaveLength(2);
  });

  it("leaves a file that does not parse untouched and exits 1 naming the place", () => {
    const file = path.join(tmp, "broken", "config.toml");
    const text = '[mcp_servers.memory]\ncommand = "npx\nargs = []\n';
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    const r = mcpbox(["config", "codex", "--write", "--file", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:2:`);
    expect(r.stderr).toMatch(/cannot be parsed/);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["config.toml"]);
  });

  it("writes to the client's usual file when --file is not given", () => {
    const r = mcpbox(["config", "cursor", "--write"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(home, ".cursor", "mcp.json"), "utf8"))).toHaveProperty("mcpServers.mcpbox");
  });

  it("rejects an unknown client (exit 2) and a bad mode", () => {
    const r = mcpbox(["config", "cursr"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown client "cursr" \(did you mean cursor\?\)/);
    expect(mcpbox(["config", "cursor", "--mode", "both"]).code).toBe(2);
  });
});

describe("mcpbox init --from", () => {
  beforeAll(() => {
    for (const d of FIXTURE_DIRS) fs.mkdirSync(path.join(home, d), { recursive: true });
    for (const [rel, text] of Object.entries(FIXTURE_FILES)) fs.writeFileSync(path.join(home, rel), text);
  });

  const cases: Array<[string, (home: string) => string, string]> = [
    ["Claude Desktop", CLAUDE_DESKTOP, ".config/Claude/claude_desktop_config.json"],
    ["Cursor", CURSOR, ".cursor/mcp.json"],
    ["VS Code", VSCODE, ".config/Code/User/mcp.json"],
  ];

  it.each(cases)("converts a realistic %s file into a config that validates", async (_, make, rel) => {
    const file = path.join(home, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, make(home));
    const result = await convertClientConfig(file, { cwd: project, home });
    expect(result.source).toBe(file);
    expect(result.text.startsWith('import { defineConfig } from "mcpbox";\n')).toBe(true);
    expect(result.text).toContain("export default defineConfig({");
    for (const secret of SECRET_VALUES) expect(result.text).not.toContain(secret);
    expect(result.servers).toBeGreaterThanOrEqual(4);
    expect(result.skipped).toBeGreaterThanOrEqual(2);
    const out = path.join(tmp, "converted", `${path.basename(rel)}.sandbox.config.ts`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, result.text);
    const v = mcpbox(["validate", "--json", "-c", out]);
    expect(v.code, `${v.stdout}\n${v.stderr}\n${result.text}`).toBe(0);
    const report = JSON.parse(v.stdout) as { valid: boolean; servers: string[] };
    expect(report.valid).toBe(true);
    expect(report.servers).toEqual(expect.arrayContaining(["filesystem", "github", "fetch"]));
  });

  it("finds the client's usual file by name (init --from claude-desktop)", () => {
    const dir = path.join(tmp, "init-from");
    const r = mcpbox(["init", dir, "--from", "claude-desktop"]);
    expect(r.code, r.stderr).toBe(0);
    const text = fs.readFileSync(path.join(dir, "sandbox.config.ts"), "utf8");
    for (const secret of SECRET_VALUES) expect(text).not.toContain(secret);
    const v = mcpbox(["validate", "-c", path.join(dir, "sandbox.config.ts")]);
    expect(v.code, v.stderr + text).toBe(0);
  });
});
