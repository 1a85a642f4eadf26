/**
 * Where each client keeps its user-level MCP configuration on each OS (issue 17), checked against what the
 * clients' own documentation and source say (the source named per row), with each OS's path rules: Windows paths
 * are absolute win32 paths with backslashes under %USERPROFILE% or %APPDATA%, macOS and Linux ones POSIX paths.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { platformDirs, osOf, vscodeUserDir } from "./paths.ts";
import { CLIENTS, getClient } from "./registry.ts";

const none = { APPDATA: undefined, XDG_CONFIG_HOME: undefined };
const mac = platformDirs({ platform: "darwin", home: "/Users/dev", env: none });
const linux = platformDirs({ platform: "linux", home: "/home/dev", env: none });
const win = platformDirs({ platform: "win32", home: "C:\\Users\\dev", env: none });

/** [client, macOS, Linux, Windows, where that is stated] */
const DOCUMENTED: [string, string, string, string, string][] = [
  ["claude-desktop", "~/Library/Application Support/Claude/claude_desktop_config.json", "~/.config/Claude/claude_desktop_config.json", "%APPDATA%\\Claude\\claude_desktop_config.json", "modelcontextprotocol.io quickstart (Linux: the community builds' Electron userData)"],
  ["claude-code", "~/.claude.json", "~/.claude.json", "%USERPROFILE%\\.claude.json", "Claude Code docs, MCP scopes: user scope lives in ~/.claude.json"],
  ["cursor", "~/.cursor/mcp.json", "~/.cursor/mcp.json", "%USERPROFILE%\\.cursor\\mcp.json", "Cursor docs, MCP: global ~/.cursor/mcp.json"],
  ["vscode", "~/Library/Application Support/Code/User/mcp.json", "~/.config/Code/User/mcp.json", "%APPDATA%\\Code\\User\\mcp.json", "VS Code docs: the user profile folder's mcp.json"],
  ["windsurf", "~/.codeium/windsurf/mcp_config.json", "~/.codeium/windsurf/mcp_config.json", "%USERPROFILE%\\.codeium\\windsurf\\mcp_config.json", "Windsurf docs, Cascade MCP"],
  ["zed", "~/.config/zed/settings.json", "~/.config/zed/settings.json", "%APPDATA%\\Zed\\settings.json", "Zed source crates/paths: macOS ~/.config/zed, Windows dirs::config_dir()/Zed"],
  ["cline", "~/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", "%APPDATA%\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json", "Cline: VS Code globalStorage of saoudrizwan.claude-dev"],
  ["continue", "~/.continue/config.yaml", "~/.continue/config.yaml", "%USERPROFILE%\\.continue\\config.yaml", "Continue docs: ~/.continue/config.yaml"],
  ["goose", "~/.config/goose/config.yaml", "~/.config/goose/config.yaml", "%APPDATA%\\Block\\goose\\config\\config.yaml", "goose docs, config files"],
  ["gemini-cli", "~/.gemini/settings.json", "~/.gemini/settings.json", "%USERPROFILE%\\.gemini\\settings.json", "Gemini CLI docs, MCP servers"],
  ["codex", "~/.codex/config.toml", "~/.codex/config.toml", "%USERPROFILE%\\.codex\\config.toml", "Codex docs, MCP and config: $CODEX_HOME moves it"],
  ["lm-studio", "~/.lmstudio/mcp.json", "~/.lmstudio/mcp.json", "%USERPROFILE%\\.lmstudio\\mcp.json", "LM Studio docs, MCP"],
  ["opencode", "~/.config/opencode/opencode.json", "~/.config/opencode/opencode.json", "%USERPROFILE%\\.config\\opencode\\opencode.json", "opencode docs, config: ~/.config/opencode"],
];

const expand = (p: string, home: string, sep: "/" | "\\") =>
  p.replace("%APPDATA%", `${home}\\AppData\\Roaming`).replace("%USERPROFILE%", home).replace(/^~/, home).split(/[\\/]/).join(sep);

describe("client configuration files in each OS's real place", () => {
  it("the table covers every client mcpbox knows", () => {
    expect(DOCUMENTED.map((r) => r[0]).sort()).toEqual(CLIENTS.map((c) => c.name).sort());
  });
  it.each(DOCUMENTED)("%s", (name, onMac, onLinux, onWindows) => {
    const c = getClient(name as never);
    expect(c.userFile(mac)).toBe(expand(onMac, "/Users/dev", "/"));
    expect(c.userFile(linux)).toBe(expand(onLinux, "/home/dev", "/"));
    expect(c.userFile(win)).toBe(expand(onWindows, "C:\\Users\\dev", "\\"));
  });
  it("Windows paths follow win32 rules, the others POSIX rules", () => {
    for (const c of CLIENTS) {
      const w = c.userFile(win)!;
      expect(path.win32.isAbsolute(w) && !w.includes("/") && w.toLowerCase().startsWith("c:\\users\\dev\\"), `${c.name}: ${w}`).toBe(true);
      for (const [d, home] of [[mac, "/Users/dev/"], [linux, "/home/dev/"]] as const) {
        const p = c.userFile(d)!;
        expect(path.posix.isAbsolute(p) && !p.includes("\\") && p.startsWith(home), `${c.name}: ${p}`).toBe(true);
        expect(path.posix.normalize(p)).toBe(p);
      }
      expect(path.win32.normalize(w)).toBe(w);
    }
  });
  it("APPDATA moves the Windows application folders; XDG_CONFIG_HOME the Linux ones", () => {
    const roaming = platformDirs({ platform: "win32", home: "C:\\Users\\dev", env: { APPDATA: "D:\\Profiles\\dev\\Roaming" } });
    expect(getClient("vscode").userFile(roaming)).toBe("D:\\Profiles\\dev\\Roaming\\Code\\User\\mcp.json");
    expect(getClient("goose").userFile(roaming)).toBe("D:\\Profiles\\dev\\Roaming\\Block\\goose\\config\\config.yaml");
    expect(getClient("cursor").userFile(roaming)).toBe("C:\\Users\\dev\\.cursor\\mcp.json"); // home-level files stay
    const xdg = platformDirs({ platform: "linux", home: "/home/dev", env: { XDG_CONFIG_HOME: "/cfg" } });
    expect(getClient("vscode").userFile(xdg)).toBe("/cfg/Code/User/mcp.json");
    expect(getClient("claude-desktop").userFile(xdg)).toBe("/cfg/Claude/claude_desktop_config.json");
    expect(vscodeUserDir(xdg, "Code - Insiders")).toBe("/cfg/Code - Insiders/User");
  });
  it("CODEX_HOME moves Codex's file when it is an absolute path (as Codex resolves it); a relative one is not used", () => {
    const moved = platformDirs({ platform: "linux", home: "/home/dev", env: { CODEX_HOME: "/srv/codex/" } });
    expect(getClient("codex").userFile(moved)).toBe("/srv/codex/config.toml");
    const win = platformDirs({ platform: "win32", home: "C:\\Users\\dev", env: { CODEX_HOME: "D:\\codex" } });
    expect(getClient("codex").userFile(win)).toBe("D:\\codex\\config.toml");
    const relative = platformDirs({ platform: "linux", home: "/home/dev", env: { CODEX_HOME: "codex" } });
    expect(getClient("codex").userFile(relative)).toBe("/home/dev/.codex/config.toml");
    expect(getClient("cursor").userFile(moved)).toBe("/home/dev/.cursor/mcp.json");
  });
  it("names each OS", () => {
    expect([osOf("darwin"), osOf("win32"), osOf("linux"), osOf("freebsd")]).toEqual(["macos", "windows", "linux", "linux"]);
  });
});
