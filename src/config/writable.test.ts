import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkRawConfig } from "./zod-check.ts";
import { errorsOf, formatProblem, warningsOf } from "./problems.ts";
import type { CheckEnv } from "./checks.ts";
import { writableDanger, type WritableEnv } from "./_writable.ts";

const home = "/home/ada";
const dir = "/work/project";
const file = path.join(dir, "sandbox.config.ts");
const modules = [file, `${dir}/lib/servers.ts`, `${dir}/node_modules/zod/index.js`];
const wenv = (over: Partial<WritableEnv> = {}): WritableEnv => ({
  home,
  platform: "linux",
  vars: { MCPBOX_HOME: "/srv/mcpbox" },
  exists: () => false,
  realpath: (p) => p,
  caseInsensitive: () => false,
  ...over,
});
const danger = (source: string, over: Partial<WritableEnv> = {}) => writableDanger(source, modules, wenv(over));

describe("writable mounts of code the host runs (SPEC 2.3, allowWritableConfig)", () => {
  it("refuses a folder holding the config or a module it imports, not its siblings", () => {
    expect(danger(dir)).toContain("holds /work/project/sandbox.config.ts");
    expect(danger("/work")).toContain("holds /work/project/sandbox.config.ts");
    expect(danger(file)).toContain("is /work/project/sandbox.config.ts");
    expect(danger(`${dir}/lib`)).toContain("lib/servers.ts");
    expect(danger(`${dir}/node_modules`)).toContain("zod/index.js");
    expect(danger(`${dir}/data`)).toBeUndefined();
  });
  it("refuses $MCPBOX_HOME, inside it and around it", () => {
    for (const p of ["/srv/mcpbox", "/srv/mcpbox/cache", "/srv"]) expect(danger(p), p).toContain("$MCPBOX_HOME");
    expect(writableDanger(`${home}/.mcpbox/run`, [], wenv({ vars: {} }))).toContain("$MCPBOX_HOME (~/.mcpbox)");
  });
  const clients = [
    `${home}/.config`, `${home}/.config/Claude`, `${home}/.config/Code/User`, `${home}/.cursor`, `${home}/.vscode/extensions`,
    `${home}/.codeium/windsurf`, `${home}/.continue`, `${home}/.gemini`, `${home}/.codex`, `${home}/.claude`,
    `${home}/.claude.json`, `${home}/.lmstudio`, `${home}/.config/zed`, `${home}/.config/goose`,
  ];
  for (const p of clients) it(`refuses ${p}, an MCP client's configuration`, () => expect(danger(p)).toContain("MCP client"));
  it("knows each OS's client folders", () => {
    expect(danger(`${home}/Library/Application Support/Claude`, { platform: "darwin" })).toContain("MCP client");
    expect(danger(`${home}/Library/Application Support`, { platform: "darwin" })).toContain("holds");
    expect(danger("/xdg/Code", { vars: { XDG_CONFIG_HOME: "/xdg" } })).toContain("MCP client");
  });
  it("refuses the files of a client's sibling programs (Cline's CLI, VS Code Insiders) on each OS", () => {
    for (const p of [`${home}/.cline`, `${home}/.cline/data/settings`]) expect(danger(p), p).toContain("MCP client");
    const mac = `${home}/Library/Application Support/Code - Insiders/User`;
    expect(danger(mac, { platform: "darwin" })).toContain("MCP client");
    expect(danger(`${mac}/globalStorage`, { platform: "darwin" })).toContain("MCP client");
    const win = { platform: "win32" as const, home: "C:\\Users\\ada", vars: { APPDATA: "C:\\Users\\ada\\AppData\\Roaming" } };
    expect(writableDanger("C:\\Users\\ada\\AppData\\Roaming\\Code - Insiders\\User", [], wenv(win))).toContain("MCP client");
    expect(writableDanger("C:\\Users\\ada\\.cline", [], wenv(win))).toContain("MCP client");
  });
  it("refuses the folder a variable moves a client's configuration to (CODEX_HOME, CLAUDE_CONFIG_DIR), and VS Code Insiders' extensions", () => {
    const vars = { MCPBOX_HOME: "/srv/mcpbox", CODEX_HOME: "/opt/codex", CLAUDE_CONFIG_DIR: "/data/claude" };
    expect(danger("/opt/codex", { vars })).toContain("is /opt/codex, an MCP client's configuration");
    expect(danger("/opt", { vars })).toContain("holds /opt/codex");
    expect(danger("/data/claude/plugins", { vars })).toContain("is inside /data/claude");
    expect(danger("/opt/codex")).toBeUndefined();
    expect(danger(`${home}/.vscode-insiders/extensions`)).toContain("MCP client");
  });
  it("refuses shell startup files and folders on PATH", () => {
    for (const p of [`${home}/.bashrc`, `${home}/.profile`, `${home}/.local/bin`, `${home}/bin`, `${home}/.gitconfig`]) {
      expect(danger(p), p).toContain("which the host runs");
    }
  });
  it("refuses a repository or a client's project, and a .git folder", () => {
    expect(danger("/src/app", { exists: (p) => p === "/src/app/.git" })).toContain("holds .git");
    expect(danger("/src/app", { exists: (p) => p === "/src/app/.vscode" })).toContain("holds .vscode");
    expect(danger("/src/app", { exists: (p) => p === "/src/app/.mcp.json" })).toContain("holds .mcp.json");
    expect(danger("/src/app/.git/hooks")).toContain(".git folder");
  });
  it("compares case-insensitively where the file system does", () => {
    expect(danger(`${home}/.CURSOR`, { caseInsensitive: () => true })).toContain("MCP client");
    expect(danger(`${home}/.CURSOR`)).toBeUndefined();
  });
  it("resolves symlinks of the guarded paths", () => {
    expect(danger("/dotfiles/cursor", { realpath: (p) => (p === `${home}/.cursor` ? "/dotfiles/cursor" : p) })).toContain("MCP client");
  });

  const env: CheckEnv = {
    home,
    exists: (p) => !p.endsWith("/.git") && !/\/\.[a-z]+$/.test(p) && !p.endsWith(".json"),
    realpath: (p) => p,
    vars: { MCPBOX_HOME: "/srv/mcpbox" },
    modules: () => modules,
  };
  const server = (mount: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    checkRawConfig({ servers: { files: { image: "mcp/x:1", mounts: [{ target: "/m", ...mount }], ...extra } } }, file, env);

  it("is an error naming the opt-in, a warning with it, and fine read-only", () => {
    const refused = server({ source: "./lib", readOnly: false });
    expect(errorsOf(refused.problems).map((p) => formatProblem("c.ts", p))).toEqual([
      "c.ts: servers.files.mounts.0.readOnly: is writable and holds /work/project/lib/servers.ts, which the config runs: the server could change what runs on the host (make it read-only (remove readOnly: false), mount a folder that holds only data, or set servers.files.dangerous.allowWritableConfig: true)",
    ]);
    const allowed = server({ source: "./lib", readOnly: false }, { dangerous: { allowWritableConfig: true } });
    expect(errorsOf(allowed.problems)).toEqual([]);
    expect(warningsOf(allowed.problems).map((p) => p.path.join("."))).toEqual([
      "servers.files.mounts.0.readOnly",
      "servers.files.dangerous.allowWritableConfig",
    ]);
    expect(server({ source: "./lib" }).problems).toEqual([]);
    expect(server({ source: "./data", readOnly: false }).problems).toEqual([]);
  });
  it("names defaults.dangerous for a mount in defaults", () => {
    const r = checkRawConfig(
      { defaults: { mounts: [{ source: ".", target: "/p", readOnly: false }] }, servers: { a: { image: "mcp/x:1" } } },
      file,
      env,
    );
    expect(errorsOf(r.problems)[0]?.hint).toContain("defaults.dangerous.allowWritableConfig");
  });
});

describe("the project markers of a writable mount, on a real folder (one listing, then a look-up of what it lists)", () => {
  it("finds each marker as the look-up alone did, a dangling link is none, and the case rule holds", async () => {
    const fs = await import("node:fs");
    const os = await import("node:os");
    const { realEnv } = await import("./checks.ts");
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-markers-"));
    try {
      const env = realEnv(home) as CheckEnv & WritableEnv;
      const listed = { ...env, platform: "linux" as const, vars: {} };
      const alone = { ...listed, entries: undefined };
      const cases: [string, (d: string) => void][] = [
        ["empty", () => {}],
        ["git", (d) => fs.mkdirSync(path.join(d, ".git"))],
        ["vscode file", (d) => fs.writeFileSync(path.join(d, ".vscode"), "")],
        ["opencode", (d) => fs.writeFileSync(path.join(d, "opencode.json"), "{}")],
        ["dangling", (d) => fs.symlinkSync(path.join(d, "nowhere"), path.join(d, ".git"))],
        ["upper", (d) => fs.mkdirSync(path.join(d, ".GIT"))],
      ];
      for (const [name, make] of cases) {
        const d = path.join(tmp, name);
        fs.mkdirSync(d);
        make(d);
        expect(writableDanger(d, [], listed), name).toBe(writableDanger(d, [], alone));
        const ci = { ...listed, caseInsensitive: () => true };
        expect(writableDanger(d, [], ci), `${name}, case-insensitive`).toBe(writableDanger(d, [], { ...ci, entries: undefined }));
      }
      expect(writableDanger(path.join(tmp, "git"), [], listed)).toContain("holds .git");
      expect(writableDanger(path.join(tmp, "dangling"), [], listed)).toBeUndefined();
      expect(writableDanger(path.join(tmp, "opencode", "opencode.json"), [], listed)).toBe(writableDanger(path.join(tmp, "opencode", "opencode.json"), [], alone));
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
