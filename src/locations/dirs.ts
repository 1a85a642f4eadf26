/**
 * The folders configuration files live in, per OS; computed from inputs (platform, home, environment) so a test or
 * a check can ask for any OS. Pure: no file is read here.
 */
import os from "node:os";
import path from "node:path";

export type OsName = "macos" | "windows" | "linux";

/** The folders a location is built from; all absolute, for the OS the paths are for. */
export interface PlatformDirs {
  os: OsName;
  home: string;
  /** Windows %APPDATA% (default <home>\AppData\Roaming) */
  appData: string;
  /** macOS ~/Library/Application Support */
  appSupport: string;
  /** Linux $XDG_CONFIG_HOME (default ~/.config) */
  xdgConfig: string;
  /** Codex's folder: $CODEX_HOME when it is an absolute path, else ~/.codex (as Codex itself resolves it) */
  codexHome: string;
  /** joins with the OS's separator */
  join: (...parts: string[]) => string;
}

export interface DirsInput {
  platform?: NodeJS.Platform;
  home?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

export function osOf(platform: NodeJS.Platform): OsName {
  if (platform === "darwin") return "macos";
  if (platform === "win32") return "windows";
  return "linux";
}

export function platformDirs(input: DirsInput = {}): PlatformDirs {
  const osName = osOf(input.platform ?? process.platform);
  const env = input.env ?? process.env;
  const home = input.home ?? os.homedir();
  const p = osName === "windows" ? path.win32 : path.posix;
  return {
    os: osName,
    home,
    appData: env.APPDATA ?? p.join(home, "AppData", "Roaming"),
    appSupport: p.join(home, "Library", "Application Support"),
    xdgConfig: env.XDG_CONFIG_HOME ?? p.join(home, ".config"),
    codexHome: env.CODEX_HOME && p.isAbsolute(env.CODEX_HOME) ? p.normalize(env.CODEX_HOME) : p.join(home, ".codex"),
    join: (...parts) => p.join(...parts),
  };
}

/** The same file under the home folder on every OS (Windows: %USERPROFILE%). */
export const inHome =
  (...parts: string[]) =>
  (d: PlatformDirs) =>
    d.join(d.home, ...parts);

/** VS Code's user folder: where VS Code and its extensions (Cline) keep user-level files; Insiders has its own. */
export function vscodeUserDir(d: PlatformDirs, product = "Code"): string {
  if (d.os === "macos") return d.join(d.appSupport, product, "User");
  if (d.os === "windows") return d.join(d.appData, product, "User");
  return d.join(d.xdgConfig, product, "User");
}
