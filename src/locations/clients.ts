/**
 * Where every supported MCP client keeps its configuration: the location table, data apart from the client formats
 * (`src/clients/`). The formats take their locations from here; the writable-mount check (`config/_writable.ts`)
 * reads the same table, so it guards every client's files without knowing how any of them is written.
 * Each row's source is named in `src/clients/paths.test.ts`.
 */
import { inHome, vscodeUserDir, type PlatformDirs } from "./dirs.ts";

/** A file another program of the same client reads (Cline's CLI beside its VS Code extension). */
export interface SiblingFile {
  title: string;
  file: (d: PlatformDirs) => string;
  /** a folder that exists once the sibling has run */
  installedAt: (d: PlatformDirs) => string;
}

export interface ClientLocation {
  /** the user-level file on this OS (undefined: the client has none there) */
  userFile: (d: PlatformDirs) => string | undefined;
  /** the project-level file relative to the project folder, where the client has one */
  projectFile?: string;
  /** other programs of the same client that read a file of their own, written by `--write` too when installed */
  siblings?: readonly SiblingFile[];
}

const insiders = "Code - Insiders";

export const CLIENT_LOCATIONS = {
  "claude-desktop": {
    userFile: (d) => {
      if (d.os === "macos") return d.join(d.appSupport, "Claude", "claude_desktop_config.json");
      if (d.os === "windows") return d.join(d.appData, "Claude", "claude_desktop_config.json");
      return d.join(d.xdgConfig, "Claude", "claude_desktop_config.json");
    },
  },
  "claude-code": { userFile: inHome(".claude.json"), projectFile: ".mcp.json" },
  cursor: { userFile: inHome(".cursor", "mcp.json"), projectFile: ".cursor/mcp.json" },
  vscode: {
    userFile: (d) => d.join(vscodeUserDir(d), "mcp.json"),
    siblings: [
      { title: "VS Code Insiders", file: (d) => d.join(vscodeUserDir(d, insiders), "mcp.json"), installedAt: (d) => vscodeUserDir(d, insiders) },
    ],
    projectFile: ".vscode/mcp.json",
  },
  windsurf: { userFile: inHome(".codeium", "windsurf", "mcp_config.json") },
  zed: {
    userFile: (d) => (d.os === "windows" ? d.join(d.appData, "Zed", "settings.json") : d.join(d.xdgConfig, "zed", "settings.json")),
    projectFile: ".zed/settings.json",
  },
  cline: {
    userFile: (d) => d.join(vscodeUserDir(d), "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"),
    siblings: [
      { title: "Cline CLI", file: inHome(".cline", "data", "settings", "cline_mcp_settings.json"), installedAt: inHome(".cline") },
    ],
  },
  continue: { userFile: inHome(".continue", "config.yaml") },
  goose: {
    userFile: (d) =>
      d.os === "windows" ? d.join(d.appData, "Block", "goose", "config", "config.yaml") : d.join(d.xdgConfig, "goose", "config.yaml"),
  },
  "gemini-cli": { userFile: inHome(".gemini", "settings.json"), projectFile: ".gemini/settings.json" },
  codex: { userFile: (d) => d.join(d.codexHome, "config.toml"), projectFile: ".codex/config.toml" },
  "lm-studio": { userFile: inHome(".lmstudio", "mcp.json") },
  opencode: {
    userFile: (d) => d.join(d.os === "linux" ? d.xdgConfig : d.join(d.home, ".config"), "opencode", "opencode.json"),
    projectFile: "opencode.json",
  },
} as const satisfies Record<string, ClientLocation>;

export type ClientName = keyof typeof CLIENT_LOCATIONS;

/**
 * Beyond each client's MCP file: home-level folders and files the clients and their editors' extensions keep
 * configuration in, and the application folders (under %APPDATA% on Windows, Application Support on macOS).
 */
export const CLIENT_HOME_PATHS = [
  ".config", ".claude", ".claude.json", ".cursor", ".vscode", ".vscode-insiders", ".vscode-server", ".codeium", ".windsurf",
  ".continue", ".gemini", ".codex", ".lmstudio", ".zed", ".local/share/zed",
] as const;
export const CLIENT_APP_FOLDERS = ["Claude", "Code", "Cursor", "Windsurf", "Zed"] as const;
/** Variables that move a client's whole configuration folder: Codex's CODEX_HOME, Claude Code's CLAUDE_CONFIG_DIR. */
export const CLIENT_HOME_VARS = ["CODEX_HOME", "CLAUDE_CONFIG_DIR"] as const;
