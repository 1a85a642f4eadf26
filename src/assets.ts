/**
 * Files that ship inside the binary (the repository's templates/ folder). Inside the single executable they are SEA
 * assets keyed by their path from the repository root; in development they are read from the repository itself.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

type Sea = typeof import("node:sea");

/** Folders of the repository embedded by scripts/build.mjs (keep in sync with scripts/sea/assets.mjs). */
const ASSET_DIRS = ["templates"];

const sea = (process.getBuiltinModule?.("node:sea") as Sea | undefined) ?? undefined;

/** True inside dist/mcpbox. */
export const isSea = (): boolean => sea?.isSea() === true;

/** The repository root in development: the folder holding package.json above src/. */
export function repoRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
}

/** The text of one embedded file, e.g. readAsset("templates/node/Dockerfile"). */
export function readAsset(key: string): string {
  const k = normalize(key);
  if (!isAssetKey(k)) throw missing(k);
  if (isSea()) {
    if (!sea!.getAssetKeys().includes(k)) throw missing(k);
    return sea!.getAsset(k, "utf8");
  }
  try {
    return fs.readFileSync(path.join(repoRoot(), k), "utf8");
  } catch {
    throw missing(k);
  }
}

/** Every embedded file whose key starts with prefix (e.g. "templates/node/"), sorted. */
export function listAssets(prefix: string): string[] {
  const p = normalize(prefix);
  const keys = isSea() ? sea!.getAssetKeys().filter((k) => isAssetKey(k)) : devAssetKeys();
  return keys.filter((k) => k.startsWith(p)).sort();
}

/**
 * The argv prefix that runs this same mcpbox (for helper processes it starts): the binary alone inside the single
 * executable; from the npm package (dist/npm/mcpbox.mjs, one bundled file) the Node running it and that file; in
 * development the project's Node 24 and src/cli/main.ts.
 */
export function selfCommand(): string[] {
  return selfCommandOf({ sea: isSea(), execPath: process.execPath, moduleFile: fileURLToPath(import.meta.url), root: repoRoot(), platform: process.platform, exists: fs.existsSync, realpath: fs.realpathSync });
}

export interface SelfFacts {
  sea: boolean;
  execPath: string;
  /** the file this module was loaded from: src/assets.ts in development, the bundle otherwise */
  moduleFile: string;
  root: string;
  platform: NodeJS.Platform;
  exists: (p: string) => boolean;
  realpath: (p: string) => string;
}

export function selfCommandOf(f: SelfFacts): string[] {
  if (f.sea) return [f.execPath];
  const p = f.platform === "win32" ? path.win32 : path.posix;
  const fromSource = p.basename(f.moduleFile) === "assets.ts" && p.basename(p.dirname(f.moduleFile)) === "src";
  if (!fromSource) return [f.execPath, f.moduleFile]; // the npm bundle: this module is inside it
  const projectNode = p.join(f.root, "node_modules", ".bin", f.platform === "win32" ? "node.exe" : "node");
  const node = f.exists(projectNode) ? f.realpath(projectNode) : f.execPath;
  return [node, p.join(f.root, "src", "cli", "main.ts")];
}

const isAssetKey = (k: string) => ASSET_DIRS.some((d) => k.startsWith(`${d}/`));

function normalize(key: string): string {
  const k = path.posix.normalize(key.replace(/\\/g, "/")).replace(/^(\.\/)+|^\//, "");
  return k === "." ? "" : k;
}

function missing(key: string): Error {
  return Object.assign(new Error(`mcpbox has no embedded file ${key}`), { code: "ENOENT" });
}

function devAssetKeys(): string[] {
  const root = repoRoot();
  const keys: string[] = [];
  const walk = (rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) keys.push(child);
    }
  };
  for (const d of ASSET_DIRS) walk(d);
  return keys;
}
