/**
 * Docker Desktop runs the engine in a VM and shares only some host folders with it (Settings → Resources → File
 * sharing). A bind mount of any other folder fails at container create with "Mounts denied". Both ends are here:
 * a pre-check (validate warns when discovery found Docker Desktop and a source is outside the shared folders, read
 * from Docker Desktop's settings or its defaults), and the create failure turned into one clear error. Pure.
 */
import path from "node:path";
import { McpboxError, messageOf } from "../errors.ts";
import type { EngineKind } from "./discover.ts";

/** Docker Desktop's defaults. Windows (WSL 2 backend) shares every drive; Linux shares the home folder. */
export function defaultSharedFolders(platform: NodeJS.Platform, home: string): string[] | undefined {
  if (platform === "darwin") return ["/Users", "/Volumes", "/private", "/tmp", "/var/folders"];
  if (platform === "linux") return [home];
  return undefined;
}

/** The settings files that list the shared folders (`filesharingDirectories`), newest first. */
export function settingsFiles(platform: NodeJS.Platform, home: string): string[] {
  if (platform === "darwin") {
    const group = path.posix.join(home, "Library", "Group Containers", "group.com.docker");
    return [path.posix.join(group, "settings-store.json"), path.posix.join(group, "settings.json")];
  }
  if (platform === "linux") return [path.posix.join(home, ".docker", "desktop", "settings-store.json"), path.posix.join(home, ".docker", "desktop", "settings.json")];
  return [];
}

/** The folders this Docker Desktop shares: its settings' list, or the defaults. */
export function sharedFolders(platform: NodeJS.Platform, home: string, readFile: (p: string) => string | undefined): string[] | undefined {
  for (const file of settingsFiles(platform, home)) {
    const text = readFile(file);
    if (text === undefined) continue;
    try {
      const dirs = (JSON.parse(text) as { filesharingDirectories?: unknown }).filesharingDirectories;
      if (Array.isArray(dirs) && dirs.every((d) => typeof d === "string")) return dirs as string[];
    } catch {
      // an unreadable settings file: the defaults
    }
  }
  return defaultSharedFolders(platform, home);
}

/**
 * Why Docker Desktop cannot mount `source` (absolute, symlinks resolved), or undefined. Only for Docker Desktop:
 * other engines (Colima, OrbStack, Podman machine) have their own rules and report them at create.
 */
export function fileSharingProblem(source: string, engine: EngineKind | undefined, shared: readonly string[] | undefined, platform: NodeJS.Platform): string | undefined {
  if (engine !== "docker-desktop" || shared === undefined) return undefined;
  const p = platform === "win32" ? path.win32 : path.posix;
  // macOS volumes fold case by default, and /tmp is /private/tmp there
  const fold = (x: string) => (platform === "linux" ? p.resolve(x) : p.resolve(x).toLowerCase());
  const s = fold(source);
  const inside = shared.some((d) => {
    const rel = p.relative(fold(d), s);
    return rel === "" || (rel !== ".." && !rel.startsWith(`..${p.sep}`) && !p.isAbsolute(rel)); // "..x" is a name inside
  });
  if (inside) return undefined;
  return `${source} is not shared with Docker Desktop (it shares ${shared.join(", ")})`;
}

export const FILE_SHARING_HINT = "add the folder in Docker Desktop → Settings → Resources → File sharing, or move it under a shared folder";

/** The engine's create failure for a folder Docker Desktop does not share, as one clear error; else undefined. */
export function mountsDeniedError(e: unknown, server: string): McpboxError | undefined {
  const text = messageOf(e);
  if (!/mounts denied|is not shared from the host|not shared from OS X|file sharing/i.test(text)) return undefined;
  const folder = /path (\S+) is not shared/i.exec(text)?.[1] ?? /mounts denied:\s*(\S+)/i.exec(text)?.[1];
  const what = folder ? `${folder} is not shared with the engine's VM` : "a mount source is not shared with the engine's VM";
  return new McpboxError("environment", `server ${server}: ${what} (Docker Desktop file sharing)`, { hint: FILE_SHARING_HINT, cause: e });
}
