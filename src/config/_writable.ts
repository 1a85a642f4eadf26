/**
 * What a writable mount must never reach (SPEC 2.3, allowWritableConfig): files the host later runs as the user. The
 * config is code mcpbox runs, so are the modules it imports; $MCPBOX_HOME holds mcpbox's own extracted code and
 * sockets; an MCP client's configuration says which commands the client starts; shell startup files and a
 * repository's .git (hooks, core.fsmonitor) run at the next login or git command.
 */
import { CLIENT_APP_FOLDERS, CLIENT_HOME_PATHS, CLIENT_HOME_VARS, CLIENT_LOCATIONS, type ClientLocation } from "../locations/clients.ts";
import { platformDirs } from "../locations/dirs.ts";
import { isInsideResolved, nearSets, pathsOf, someAncestorIn, tilde } from "./_denylist.ts";

export interface WritableEnv {
  home: string;
  platform: NodeJS.Platform;
  vars: Readonly<Record<string, string | undefined>>;
  exists: (p: string) => boolean;
  realpath: (p: string) => string;
  caseInsensitive: (p: string) => boolean;
  /** the names in a folder, or undefined (not a folder, unreadable, or not asked: each marker is looked up alone) */
  entries?: (dir: string) => readonly string[] | undefined;
}

interface Guarded {
  path: string;
  what: string;
  /** "holder": refused when the mount holds it; "area": also when the mount is inside it */
  rule: "holder" | "area";
}

const LOCATIONS: readonly ClientLocation[] = Object.values(CLIENT_LOCATIONS);
/** Files a shell or git runs on the host. */
const STARTUP_PATHS = [
  ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".gitconfig",
  ".local/bin", "bin",
];
/** Inside a mounted folder: what makes it a repository or a client's project. */
const PROJECT_MARKERS = [".git", ".claude", ...new Set(LOCATIONS.flatMap((c) => (c.projectFile ? [c.projectFile.split("/")[0]!] : [])))];

export function guardedPaths(configModules: readonly string[], env: WritableEnv): Guarded[] {
  const path = pathsOf(env.platform);
  const home = path.resolve(env.home);
  const tilde_ = (p: string) => tilde(p, home, env.platform);
  const d = platformDirs({ platform: env.platform, home, env: env.vars });
  const clientPaths = new Set([
    ...CLIENT_HOME_PATHS.map((p) => path.join(home, p)),
    d.xdgConfig,
    ...CLIENT_APP_FOLDERS.map((a) => path.join(d.os === "windows" ? d.appData : d.appSupport, a)),
    ...LOCATIONS.flatMap((c) => {
      const file = c.userFile(d);
      return file === undefined ? [] : [path.dirname(file) === home ? file : path.dirname(file)];
    }),
    // a sibling program reads a file of its own (Cline's CLI in ~/.cline, VS Code Insiders' user folder)
    ...LOCATIONS.flatMap((c) => (c.siblings ?? []).flatMap((s) => [s.installedAt(d), path.dirname(s.file(d))])),
    ...CLIENT_HOME_VARS.flatMap((v) => (env.vars[v] ? [path.resolve(home, env.vars[v])] : [])),
  ]);
  const mcpboxHome = path.resolve(env.vars.MCPBOX_HOME || path.join(home, ".mcpbox"));
  const guarded: Guarded[] = [
    ...configModules.map((m) => ({ path: m, what: `${tilde_(m)}, which the config runs`, rule: "holder" as const })),
    { path: mcpboxHome, what: `$MCPBOX_HOME (${tilde_(mcpboxHome)})`, rule: "area" },
    ...[...clientPaths].map((p) => ({ path: p, what: `${tilde_(p)}, an MCP client's configuration`, rule: "area" as const })),
    ...STARTUP_PATHS.map((p) => ({ path: path.join(home, p), what: `~/${p}, which the host runs`, rule: "area" as const })),
  ];
  return guarded.flatMap((g) => {
    const real = env.realpath(g.path);
    return real === g.path ? [g] : [g, { ...g, path: real }];
  });
}

type FoldedGuarded = Guarded & { q: string };
interface GuardedList {
  list: FoldedGuarded[];
  /** POSIX only (nearSets): every folded path and every folder above one; the folded paths of "area" rules */
  near?: Set<string>;
  areas?: Set<string>;
}

// one config check asks for every writable mount with the same env and modules: the list is made once for them
const guardedOf = new WeakMap<WritableEnv, { modules: readonly string[]; byCase: Map<boolean, GuardedList> }>();
function foldedGuarded(configModules: readonly string[], env: WritableEnv, ci: boolean, fold: (p: string) => string): GuardedList {
  let cached = guardedOf.get(env);
  if (cached?.modules !== configModules) guardedOf.set(env, (cached = { modules: configModules, byCase: new Map() }));
  let guarded = cached.byCase.get(ci);
  if (!guarded) {
    const list = guardedPaths(configModules, env).map((g) => ({ ...g, q: fold(g.path) }));
    guarded =
      pathsOf(env.platform).sep === "/"
        ? { list, near: nearSets(list.map((g) => g.q)).near, areas: new Set(list.flatMap((g) => (g.rule === "area" ? [g.q] : []))) }
        : { list };
    cached.byCase.set(ci, guarded);
  }
  return guarded;
}

/** Why a writable mount of `source` (absolute, symlinks resolved) would let the container change code the host runs. */
export function writableDanger(source: string, configModules: readonly string[], env: WritableEnv): string | undefined {
  const path = pathsOf(env.platform);
  const ci = env.caseInsensitive(source);
  const fold = (p: string) => (ci ? path.resolve(p).toLowerCase() : path.resolve(p));
  const p = fold(source);
  const { list: guarded, near, areas } = foldedGuarded(configModules, env, ci, fold);
  // POSIX: a source that is no guarded path, holds none and is inside no area skips the three walks (two set
  // look-ups per folder above it say so); the walks name the most precise reason first, as before
  if (!near || near.has(p) || someAncestorIn(p, areas!)) {
    // the most precise reason first: the path itself, then what it holds, then what it is inside
    const same = guarded.find((g) => g.q === p);
    if (same) return `is ${same.what}`;
    const held = guarded.find((g) => isInsideResolved(g.q, p, path));
    if (held) return `holds ${held.what}`;
    const around = guarded.find((g) => g.rule === "area" && isInsideResolved(p, g.q, path));
    if (around) return `is inside ${around.what}`;
  }
  // one listing of the folder instead of a look-up per marker (9 per writable mount); a listed name is still looked
  // up, as before (a dangling link is no marker), and a name the listing lacks is not there
  const names = env.platform === "win32" ? undefined : env.entries?.(source);
  const listed = names && new Set(ci ? names.map((n) => n.toLowerCase()) : names);
  for (const marker of PROJECT_MARKERS) {
    if (listed && !listed.has(ci ? marker.toLowerCase() : marker)) continue;
    if (env.exists(path.join(source, marker))) return `holds ${marker}, which git or an MCP client runs from`;
  }
  if (p.split(/[\\/]/).includes(".git")) return "is inside a repository's .git folder (hooks run on the host)";
  return undefined;
}
