/**
 * The mount denylist (SPEC 2.3): host paths that hand over the host when a container sees them. Pure: the home, the
 * environment variables, realpath, the case rule and the OS (its path rules) come in, so tests can fake any machine.
 */
import path from "node:path";

type PathApi = typeof path.posix;

/** The path rules of an OS (undefined: this host's). */
export const pathsOf = (platform?: NodeJS.Platform): PathApi => (platform === undefined ? path : platform === "win32" ? path.win32 : path.posix);

export type Danger = { kind: "sensitive" | "docker-socket"; what: string };

export interface DenyEnv {
  home: string;
  /** XDG_RUNTIME_DIR, DOCKER_HOST, MCPBOX_HOME as the process sees them */
  vars: Readonly<Record<string, string | undefined>>;
  realpath: (p: string) => string;
  /** does the file system holding p ignore case (macOS and Windows by default)? */
  caseInsensitive: (p: string) => boolean;
  /** whose path rules (Windows: drive letters, backslashes, UNC); default this host's */
  platform?: NodeJS.Platform;
}

interface Entry {
  path: string;
  kind: Danger["kind"];
  what: string;
}

const SOCKET_NAMES = /(^|[\\/])(docker|podman|containerd|dockershim)\.sock$/i;

/** Credential files and folders under the home folder: each one alone hands over an account. */
const CREDENTIALS = [
  ".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".config/gcloud", ".config/gh", ".netrc", ".npmrc",
  ".pypirc", ".git-credentials", ".config/git/credentials", ".config/containers", ".password-store", ".vault-token",
];

/** Where macOS and Windows keep an account's keys and tokens, under the home folder. */
const MACOS_CREDENTIALS = ["Library/Keychains"];
const WINDOWS_CREDENTIALS = [
  "AppData/Roaming/Microsoft/Credentials", "AppData/Local/Microsoft/Credentials", "AppData/Roaming/Microsoft/Protect",
  "AppData/Roaming/gcloud", "AppData/Roaming/GitHub CLI",
];
/** Docker Desktop's own folders on macOS: its Linux VM and the engine's socket live there. */
const MACOS_ENGINE_DIRS = ["Library/Containers/com.docker.docker", "Library/Group Containers/group.com.docker"];

/** Folders that hold a container engine's socket (Docker, Podman, Colima, Lima, Rancher Desktop, OrbStack). */
const HOME_ENGINE_DIRS = [".local/share/containers", ".colima", ".docker/run", ".lima", ".rd", ".orbstack"];
const SYSTEM_ENGINE_PATHS = [
  "/run/docker.sock", "/var/run/docker.sock", "/run/user", "/run/podman", "/var/run/podman", "/run/containerd",
  "/var/run/containerd", "/var/lib/docker", "/var/lib/containerd",
];
/** Windows: the engines' data and their WSL distributions (Docker Desktop's own Linux holds the engine). */
const WINDOWS_ENGINE_PATHS = [
  "C:\\ProgramData\\docker", "C:\\ProgramData\\DockerDesktop", "C:\\ProgramData\\containers",
  "\\\\wsl$\\docker-desktop", "\\\\wsl$\\docker-desktop-data", "\\\\wsl.localhost\\docker-desktop", "\\\\wsl.localhost\\docker-desktop-data",
];
/** Where Windows keeps what runs it: a container that may read it reads every account's secrets (SAM, registry). */
const WINDOWS_SENSITIVE = ["C:\\Windows"];
/** A path inside a WSL distribution, as Windows names it: \\wsl$\<distro>\... or \\wsl.localhost\<distro>\... */
const WSL_PATH = /^\\\\wsl(?:\$|\.localhost)\\([^\\]+)(\\.*)?$/i;

/**
 * The host kernel's interfaces (hrev round 5): host /proc hands a server the processes of the user's uid (the
 * container's 1000 is a desktop user's own): their environment (`/proc/<pid>/environ`: API keys) and, through
 * `/proc/<pid>/root` and `cwd`, every file they see, past this whole denylist (read-only does not stop a read);
 * /dev their shared memory (`/dev/shm`) and terminals; /sys the machine's devices and firmware.
 */
const KERNEL_PATHS: Array<[string, string]> = [
  ["/proc", "/proc, the host's processes (their environment, and every file they see through /proc/<pid>/root)"],
  ["/dev", "/dev, the host's devices (shared memory, terminals)"],
  ["/sys", "/sys, the host kernel's devices and settings"],
];

/** Every denied path of this machine, with why. */
export function deniedPaths(env: DenyEnv): Entry[] {
  const path = pathsOf(env.platform);
  const windows = env.platform === "win32";
  const home = path.resolve(env.home);
  const inHome = (p: string) => path.join(home, p);
  const shown = (p: string) => `~/${p}`;
  const entries: Entry[] = [
    ...(windows ? WINDOWS_SENSITIVE : ["/etc"]).map((p) => ({ path: p, kind: "sensitive" as const, what: p })),
    ...(windows ? [] : KERNEL_PATHS).map(([p, what]) => ({ path: p, kind: "sensitive" as const, what })),
    ...[...CREDENTIALS, ...(windows ? WINDOWS_CREDENTIALS : env.platform === "darwin" ? MACOS_CREDENTIALS : [])].map((p) => ({
      path: inHome(p),
      kind: "sensitive" as const,
      what: shown(p),
    })),
    ...(windows ? WINDOWS_ENGINE_PATHS : SYSTEM_ENGINE_PATHS).map((p) => ({ path: p, kind: "docker-socket" as const, what: `${p}, which holds a container engine socket` })),
    ...[...HOME_ENGINE_DIRS, ...(env.platform === "darwin" ? MACOS_ENGINE_DIRS : [])].map((p) => ({
      path: inHome(p),
      kind: "docker-socket" as const,
      what: `${shown(p)}, which holds a container engine socket`,
    })),
  ];
  const runtime = env.vars.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime) && !windows) {
    entries.push({ path: runtime, kind: "docker-socket", what: `$XDG_RUNTIME_DIR (${runtime}), which holds engine sockets` });
  }
  const socketDir = unixSocketDir(env.vars.DOCKER_HOST, env.platform);
  if (socketDir) entries.push({ path: socketDir, kind: "docker-socket", what: `${socketDir}, which holds the DOCKER_HOST socket` });
  const mcpboxHome = env.vars.MCPBOX_HOME || inHome(".mcpbox");
  entries.push({ path: path.resolve(mcpboxHome), kind: "sensitive", what: `$MCPBOX_HOME (${tilde(path.resolve(mcpboxHome), home, env.platform)})` });
  // a symlinked entry (~/.ssh -> /data/keys) is denied at its target too
  return entries.flatMap((e) => {
    const real = env.realpath(e.path);
    return real === e.path ? [e] : [e, { ...e, path: real }];
  });
}

/** The folder of a `unix://` DOCKER_HOST socket, or undefined. */
export function unixSocketDir(dockerHost: string | undefined, platform?: NodeJS.Platform): string | undefined {
  if (!dockerHost?.startsWith("unix://")) return undefined;
  const path = pathsOf(platform);
  const socket = dockerHost.slice("unix://".length);
  return path.isAbsolute(socket) ? path.dirname(socket) : undefined;
}

/**
 * Why mounting `source` (absolute, symlinks resolved) would hand over the host, or undefined: it is a denied path,
 * inside one, or a folder that contains one.
 */
export function denyReason(source: string, env: DenyEnv): Danger | undefined {
  const path = pathsOf(env.platform);
  const ci = env.caseInsensitive(source);
  const fold = (p: string) => (ci ? path.resolve(p).toLowerCase() : path.resolve(p));
  const p = fold(source);
  if (SOCKET_NAMES.test(p)) return { kind: "docker-socket", what: "a container engine socket" };
  if (env.platform === "win32") {
    const wsl = wslDanger(path.resolve(source));
    if (wsl) return wsl;
  }
  if (path.parse(p).root === p) return { kind: "sensitive", what: p === "/" ? "the root filesystem" : `the whole drive ${path.resolve(source)}` };
  const denied = foldedDenied(env, ci, fold);
  if (p === denied.home || p === denied.realHome) return { kind: "sensitive", what: "your home folder" };
  // POSIX: most sources are none of the entries, inside none and hold none; two set look-ups per folder above the
  // source say so without the walk below (which names the first entry that matches, as before)
  if (denied.near && !denied.near.has(p) && !someAncestorIn(p, denied.paths!)) return undefined;
  // sockets first: the more serious refusal names the more serious opt-in
  for (const entries of [denied.sockets, denied.sensitive]) {
    for (const e of entries) {
      const d = e.folded;
      if (p === d || isInsideResolved(p, d, path)) return { kind: e.kind, what: e.what };
      if (isInsideResolved(d, p, path)) return { kind: e.kind, what: `a folder that contains ${e.what.split(",")[0]}${e.kind === "docker-socket" ? " (a container engine socket)" : ""}` };
    }
  }
  return undefined;
}

type Folded = Entry & { folded: string };
interface Denied {
  /** the home folder, and its realpath, folded */
  home: string;
  realHome: string;
  sockets: Folded[];
  sensitive: Folded[];
  /** POSIX only: every folded entry, and those with every folder above them */
  paths?: Set<string>;
  near?: Set<string>;
}

// one config check asks for every mount with the same env: the list (and its realpaths) is made once per env and case rule
const deniedOf = new WeakMap<DenyEnv, Map<boolean, Denied>>();
function foldedDenied(env: DenyEnv, ci: boolean, fold: (p: string) => string): Denied {
  const byCase = deniedOf.get(env) ?? new Map<boolean, Denied>();
  deniedOf.set(env, byCase);
  let denied = byCase.get(ci);
  if (!denied) {
    const home = fold(env.home);
    const realHome = fold(env.realpath(env.home));
    const list = deniedPaths(env).map((e) => ({ ...e, folded: fold(e.path) }));
    const sockets = list.filter((x) => x.kind === "docker-socket");
    const sensitive = list.filter((x) => x.kind === "sensitive");
    denied = pathsOf(env.platform).sep === "/" ? { home, realHome, sockets, sensitive, ...nearSets(list.map((e) => e.folded)) } : { home, realHome, sockets, sensitive };
    byCase.set(ci, denied);
  }
  return denied;
}

/**
 * POSIX paths that path.resolve made (not the root): the set of them, and the set of them and every folder above
 * each. A path q is one of them, or holds one (one is inside q), exactly when near has q; q is inside one exactly
 * when someAncestorIn(q, paths) (isInsideResolved's prefix rule, folder by folder).
 */
export function nearSets(resolved: readonly string[]): { paths: Set<string>; near: Set<string> } {
  const paths = new Set(resolved);
  const near = new Set(resolved);
  for (const r of resolved) {
    for (let i = r.lastIndexOf("/"); i > 0; i = r.lastIndexOf("/", i - 1)) near.add(r.slice(0, i));
    near.add("/");
  }
  return { paths, near };
}

/** Is a folder above p (POSIX, resolved) in the set? */
export function someAncestorIn(p: string, set: ReadonlySet<string>): boolean {
  for (let i = p.lastIndexOf("/"); i > 0; i = p.lastIndexOf("/", i - 1)) if (set.has(p.slice(0, i))) return true;
  return p !== "/" && set.has("/");
}

/**
 * A WSL distribution's files seen from Windows: the distribution's own Linux rules apply inside it (its /etc, its
 * engine sockets, the credentials of the home folder named in the path); Docker Desktop's distributions hold the engine.
 */
function wslDanger(source: string): Danger | undefined {
  const m = WSL_PATH.exec(source);
  if (!m) return undefined;
  const distro = m[1]!;
  if (/^docker-desktop/i.test(distro)) return { kind: "docker-socket", what: `WSL's ${distro}, which holds Docker Desktop's engine` };
  const inner = (m[2] ?? "\\").replaceAll("\\", "/");
  if (inner === "/") return { kind: "sensitive", what: `the root filesystem of WSL's ${distro}` };
  const user = /^\/home\/([^/]+)/.exec(inner)?.[1];
  const linux: DenyEnv = { home: user ? `/home/${user}` : "/root", vars: {}, realpath: (x) => x, caseInsensitive: () => false, platform: "linux" };
  const d = denyReason(inner, linux);
  return d && { ...d, what: `${d.what.replace(/^~\//, `${linux.home}/`)} in WSL's ${distro}` };
}

/**
 * isInside for paths that path.resolve made (as the checks' fold does), POSIX rules: a prefix test. path.relative
 * cost a third of validate's checks (40 mounts against 30 entries each, issue 15). Windows keeps path.relative (its
 * case rule).
 */
export const isInsideResolved = (child: string, parent: string, paths: PathApi = path): boolean => {
  if (paths.sep !== "/") return isInside(child, parent, paths);
  return child.length > parent.length && child.startsWith(parent) && (parent.endsWith("/") || child[parent.length] === "/");
};

export const isInside = (child: string, parent: string, paths: PathApi = path): boolean => {
  const rel = paths.relative(parent, child);
  // "..x" is a name inside parent; only ".." itself or a path starting "../" (or "..\\") leaves it
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${paths.sep}`) && !paths.isAbsolute(rel);
};

/** ~/x for a path under home (with "/" on every OS: the way people write it in the config). */
export const tilde = (p: string, home: string, platform?: NodeJS.Platform): string => {
  const paths = pathsOf(platform);
  return p.startsWith(home + paths.sep) ? `~/${paths.relative(home, p).split(paths.sep).join("/")}` : p;
};
