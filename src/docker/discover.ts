/**
 * Which container engine to talk to, on each OS, the way the docker CLI and the desktop engines arrange it:
 * DOCKER_HOST, then the current Docker context (DOCKER_CONTEXT or ~/.docker/config.json `currentContext`), then the
 * sockets and named pipes the engines make (Docker Desktop, OrbStack, Colima, Rancher Desktop, Podman machine,
 * rootless Docker and Podman, the system socket). Pure: the OS, variables, home and file checks come in
 * (`hostDiscoveryEnv` reads the real ones), so every rule is tested with fixtures of each OS.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

export type EngineKind =
  | "env"
  | "context"
  | "docker-desktop"
  | "orbstack"
  | "colima"
  | "rancher-desktop"
  | "podman-machine"
  | "rootless-docker"
  | "podman"
  | "docker";

export interface EngineCandidate {
  /** as DOCKER_HOST spells it: unix:///path, npipe:////./pipe/name, tcp://host:port, ssh://user@host */
  host: string;
  kind: EngineKind;
  /** what it is, for people: "Colima", "Docker context colima", "DOCKER_HOST" */
  label: string;
  /** where mcpbox found it: "$DOCKER_HOST", "~/.docker/config.json currentContext", "its socket" */
  from: string;
}

export interface Discovery {
  found?: EngineCandidate;
  /** every well-known place looked at, in order (the found one included) */
  looked: EngineCandidate[];
  /** a context that is named but cannot be read: said, not fatal */
  warning?: string;
}

export interface DiscoveryEnv {
  platform: NodeJS.Platform;
  vars: Readonly<Record<string, string | undefined>>;
  home: string;
  uid?: number;
  /** does this socket, named pipe or file exist? */
  exists: (p: string) => boolean;
  /** the file's text, or undefined when it cannot be read */
  readFile: (p: string) => string | undefined;
  /** the uid owning this socket (not following a link), or undefined when unknown (Windows, gone) */
  ownerOf?: (p: string) => number | undefined;
}

export function discoverEngine(env: DiscoveryEnv): Discovery {
  const dockerHost = env.vars.DOCKER_HOST?.trim();
  if (dockerHost) {
    const found = { host: dockerHost, kind: "env" as const, label: "DOCKER_HOST", from: "$DOCKER_HOST" };
    return { found, looked: [found] };
  }
  const context = currentContext(env);
  if (context.candidate) return { found: context.candidate, looked: [context.candidate] };
  const p = pathOf(env.platform);
  // without a home folder, only absolute places (a relative one would be looked for in the working folder)
  const looked = wellKnown(env).filter((c) => c.host.startsWith("npipe://") || p.isAbsolute(socketOf(c.host)));
  // a socket another user planted (a shared TMPDIR or runtime folder) would receive every create request, secrets in
  // the environment included: only the user's own sockets and root's count
  const trusted = (c: EngineCandidate) => {
    const owner = c.host.startsWith("unix://") && env.uid !== undefined ? env.ownerOf?.(socketOf(c.host)) : undefined;
    return owner === undefined || owner === env.uid || owner === 0;
  };
  const found = looked.find((c) => env.exists(socketOf(c.host)) && trusted(c));
  return { found, looked, ...(context.warning ? { warning: context.warning } : {}) };
}

/** The Docker context in use, unless it is "default" (the well-known sockets then). */
function currentContext(env: DiscoveryEnv): { candidate?: EngineCandidate; warning?: string } {
  const p = pathOf(env.platform);
  const configDir = env.vars.DOCKER_CONFIG || p.join(env.home, ".docker");
  let name = env.vars.DOCKER_CONTEXT?.trim();
  let from = "$DOCKER_CONTEXT";
  if (!name) {
    const text = env.readFile(p.join(configDir, "config.json"));
    name = text === undefined ? undefined : (parseJson(text) as { currentContext?: unknown } | undefined)?.currentContext as string | undefined;
    from = `${tildeOf(p.join(configDir, "config.json"), env)} currentContext`;
  }
  if (typeof name !== "string" || name === "" || name === "default") return {};
  // node:crypto only for a named context: loading it costs every start of validate ~8 ms CPU (issue 15)
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  const meta = p.join(configDir, "contexts", "meta", createHash("sha256").update(name).digest("hex"), "meta.json");
  const parsed = parseJson(env.readFile(meta) ?? "") as { Endpoints?: { docker?: { Host?: unknown } } } | undefined;
  const host = parsed?.Endpoints?.docker?.Host;
  if (typeof host !== "string" || host === "") {
    return { warning: `the Docker context ${name} (${from}) has no readable endpoint in ${tildeOf(meta, env)}; looked for an engine instead` };
  }
  return { candidate: { host, kind: "context", label: `Docker context ${name}`, from } };
}

/** The places engines put their socket on this OS, most specific first. */
function wellKnown(env: DiscoveryEnv): EngineCandidate[] {
  const p = pathOf(env.platform);
  const home = (...parts: string[]) => p.join(env.home, ...parts);
  const unix = (file: string, kind: EngineKind, label: string): EngineCandidate => ({ host: `unix://${file}`, kind, label, from: "its socket" });
  const pipe = (name: string, kind: EngineKind, label: string): EngineCandidate => ({ host: `npipe:////./pipe/${name}`, kind, label, from: "its named pipe" });
  const colimaHome = env.vars.COLIMA_HOME || home(".colima");
  const colima = unix(p.join(colimaHome, "default", "docker.sock"), "colima", "Colima");
  if (env.platform === "win32") {
    return [
      pipe("docker_engine", "docker-desktop", "Docker Desktop (or Rancher Desktop)"),
      pipe("podman-machine-default", "podman-machine", "Podman machine"),
    ];
  }
  const podmanMachine = ["", "qemu", "applehv", "libkrun"].map((vm) =>
    unix(home(".local", "share", "containers", "podman", "machine", ...(vm ? [vm] : []), "podman.sock"), "podman-machine", "Podman machine"),
  );
  if (env.platform === "darwin") {
    const tmp = env.vars.TMPDIR;
    return [
      unix(home(".docker", "run", "docker.sock"), "docker-desktop", "Docker Desktop"),
      unix(home(".orbstack", "run", "docker.sock"), "orbstack", "OrbStack"),
      colima,
      unix(home(".rd", "docker.sock"), "rancher-desktop", "Rancher Desktop"),
      ...podmanMachine,
      ...(tmp ? [unix(p.join(tmp, "podman", "podman-machine-default-api.sock"), "podman-machine" as const, "Podman machine")] : []),
      unix("/var/run/docker.sock", "docker", "the Docker socket"),
    ];
  }
  const runtime = env.vars.XDG_RUNTIME_DIR || (env.uid !== undefined && env.uid !== 0 ? `/run/user/${env.uid}` : undefined);
  return [
    unix("/var/run/docker.sock", "docker", "Docker Engine"),
    ...(runtime ? [unix(p.join(runtime, "docker.sock"), "rootless-docker", "rootless Docker")] : []),
    unix(home(".docker", "desktop", "docker.sock"), "docker-desktop", "Docker Desktop"),
    ...(runtime ? [unix(p.join(runtime, "podman", "podman.sock"), "podman", "Podman")] : []),
    unix("/run/podman/podman.sock", "podman", "Podman"),
    colima,
    unix(home(".rd", "docker.sock"), "rancher-desktop", "Rancher Desktop"),
  ];
}

/** The socket file or pipe a host names ("" for tcp:// and ssh://, which have none to look at). */
export function socketOf(host: string): string {
  if (host.startsWith("unix://")) return host.slice("unix://".length);
  if (host.startsWith("npipe://")) return host.slice("npipe://".length).replaceAll("/", "\\");
  return "";
}

/** dockerode's options for a host (undefined: dockerode reads DOCKER_HOST and the TLS variables itself). */
export function dockerodeOptions(c: EngineCandidate | undefined): Record<string, unknown> | undefined {
  if (!c || c.kind === "env") return undefined;
  if (c.host.startsWith("unix://")) return { socketPath: c.host.slice("unix://".length) };
  if (c.host.startsWith("npipe://")) return { socketPath: c.host.slice("npipe://".length) };
  const url = new URL(c.host.includes("://") ? c.host : `tcp://${c.host}`);
  if (url.protocol === "ssh:") return { protocol: "ssh", host: url.hostname, port: url.port || 22, username: url.username || undefined };
  return { protocol: url.port === "2376" ? "https" : "http", host: url.hostname, port: url.port || 2375 };
}

/** What `doctor` says about the engine: which one and from where, or, when none, what to start on this OS. */
export function engineSentence(d: Discovery, platform: NodeJS.Platform): string {
  if (d.found) return `container engine: ${d.found.label} at ${d.found.host} (from ${d.found.from})`;
  const where = d.looked.map((c) => socketOf(c.host)).join(", ");
  return `no container engine found (looked at ${where}): ${startHint(platform)}`;
}

/** What to start on this OS when no engine answers. */
export function startHint(platform: NodeJS.Platform): string {
  const start: Record<string, string> = {
    darwin: "start Docker Desktop, OrbStack, Colima (`colima start`), Rancher Desktop or a Podman machine (`podman machine start`)",
    win32: "start Docker Desktop, Rancher Desktop or a Podman machine (`podman machine start`)",
    linux: "start Docker (`sudo systemctl start docker`), rootless Docker (`systemctl --user start docker`) or Podman (`systemctl --user start podman.socket`)",
  };
  return `${start[platform] ?? start.linux}, or set DOCKER_HOST`;
}

/** The real machine's discovery inputs. */
export function hostDiscoveryEnv(): DiscoveryEnv {
  let home = "";
  try {
    home = os.homedir();
  } catch {
    // no home (a uid without a passwd entry): only the system sockets
  }
  return {
    platform: process.platform,
    vars: process.env,
    home,
    ...(typeof process.getuid === "function" ? { uid: process.getuid() } : {}),
    exists: (p) => p !== "" && fs.existsSync(p),
    ownerOf: (p) => {
      try {
        return fs.lstatSync(p).uid;
      } catch {
        return undefined;
      }
    },
    readFile: (p) => {
      try {
        return fs.readFileSync(p, "utf8");
      } catch {
        return undefined;
      }
    },
  };
}

const pathOf = (platform: NodeJS.Platform) => (platform === "win32" ? path.win32 : path.posix);

function tildeOf(p: string, env: DiscoveryEnv): string {
  const m = pathOf(env.platform);
  return env.home && p.startsWith(env.home + m.sep) ? `~${m.sep}${m.relative(env.home, p)}` : p;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
