/**
 * The mount denylist (SPEC 2.3): host paths that hand over the host when a container sees them. Pure: the home, the
 * environment variables, realpath and the case rule come in, so tests can fake any machine.
 */
import path from "node:path";

export type Danger = { kind: "sensitive" | "docker-socket"; what: string };

export interface DenyEnv {
  home: string;
  /** XDG_RUNTIME_DIR, DOCKER_HOST, MCPBOX_HOME as the process sees them */
  vars: Readonly<Record<string, string | undefined>>;
  realpath: (p: string) => string;
  /** does the file system holding p ignore case (macOS and Windows by default)? */
  caseInsensitive: (p: string) => boolean;
}

interface Entry {
  path: string;
  kind: Danger["kind"];
  what: string;
}

const SOCKET_NAMES = /(^|\/)(docker|podman|containerd|dockershim)\.sock$/i;

/** Credential files and folders under the home folder: each one alone hands over an account. */
const CREDENTIALS = [
  ".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".config/gcloud", ".config/gh", ".netrc", ".npmrc",
  ".pypirc", ".git-credentials", ".config/git/credentials", ".config/containers", ".password-store", ".vault-token",
];

/** Folders that hold a container engine's socket (Docker, Podman, Colima, Lima, Rancher Desktop, OrbStack). */
const HOME_ENGINE_DIRS = [".local/share/containers", ".colima", ".docker/run", ".lima", ".rd", ".orbstack"];
const SYSTEM_ENGINE_PATHS = [
  "/run/docker.sock", "/var/run/docker.sock", "/run/user", "/run/podman", "/var/run/podman", "/run/containerd",
  "/var/run/containerd", "/var/lib/docker", "/var/lib/containerd",
];

/** Every denied path of this machine, with why. */
export function deniedPaths(env: DenyEnv): Entry[] {
  const home = path.resolve(env.home);
  const inHome = (p: string) => path.join(home, p);
  const entries: Entry[] = [
    { path: "/etc", kind: "sensitive", what: "/etc" },
    ...CREDENTIALS.map((p) => ({ path: inHome(p), kind: "sensitive" as const, what: `~/${p}` })),
    ...SYSTEM_ENGINE_PATHS.map((p) => ({ path: p, kind: "docker-socket" as const, what: `${p}, which holds a container engine socket` })),
    ...HOME_ENGINE_DIRS.map((p) => ({ path: inHome(p), kind: "docker-socket" as const, what: `~/${p}, which holds a container engine socket` })),
  ];
  const runtime = env.vars.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) {
    entries.push({ path: runtime, kind: "docker-socket", what: `$XDG_RUNTIME_DIR (${runtime}), which holds engine sockets` });
  }
  const socketDir = unixSocketDir(env.vars.DOCKER_HOST);
  if (socketDir) entries.push({ path: socketDir, kind: "docker-socket", what: `${socketDir}, which holds the DOCKER_HOST socket` });
  const mcpboxHome = env.vars.MCPBOX_HOME || inHome(".mcpbox");
  entries.push({ path: path.resolve(mcpboxHome), kind: "sensitive", what: `$MCPBOX_HOME (${tilde(path.resolve(mcpboxHome), home)})` });
  // a symlinked entry (~/.ssh -> /data/keys) is denied at its target too
  return entries.flatMap((e) => {
    const real = env.realpath(e.path);
    return real === e.path ? [e] : [e, { ...e, path: real }];
  });
}

/** The folder of a `unix://` DOCKER_HOST socket, or undefined. */
export function unixSocketDir(dockerHost: string | undefined): string | undefined {
  if (!dockerHost?.startsWith("unix://")) return undefined;
  const socket = dockerHost.slice("unix://".length);
  return path.isAbsolute(socket) ? path.dirname(socket) : undefined;
}

/**
 * Why mounting `source` (absolute, symlinks resolved) would hand over the host, or undefined: it is a denied path,
 * inside one, or a folder that contains one.
 */
export function denyReason(source: string, env: DenyEnv): Danger | undefined {
  const ci = env.caseInsensitive(source);
  const fold = (p: string) => (ci ? path.resolve(p).toLowerCase() : path.resolve(p));
  const p = fold(source);
  if (SOCKET_NAMES.test(p)) return { kind: "docker-socket", what: "a container engine socket" };
  if (p === "/") return { kind: "sensitive", what: "the root filesystem" };
  if (p === fold(env.home) || p === fold(env.realpath(env.home))) return { kind: "sensitive", what: "your home folder" };
  const entries = deniedPaths(env);
  // sockets first: the more serious refusal names the more serious opt-in
  for (const kind of ["docker-socket", "sensitive"] as const) {
    for (const e of entries.filter((x) => x.kind === kind)) {
      const d = fold(e.path);
      if (p === d || isInside(p, d)) return { kind, what: e.what };
      if (isInside(d, p)) return { kind, what: `a folder that contains ${e.what.split(",")[0]}${kind === "docker-socket" ? " (a container engine socket)" : ""}` };
    }
  }
  return undefined;
}

export const isInside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
};

export const tilde = (p: string, home: string): string =>
  p.startsWith(home + path.sep) ? `~/${path.relative(home, p)}` : p;
