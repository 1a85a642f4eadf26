/**
 * The checks of `mcpbox doctor` as pure functions from measured facts to results. Gathering the facts (engine, files)
 * happens in gather.ts; formatting and the exit code in report.ts.
 */
import { engineSentence, type Discovery } from "../docker/discover.ts";

export type CheckStatus = "ok" | "warn" | "fail";

export interface CheckResult {
  name: string;
  status: CheckStatus;
  message: string;
  /** what to do about a warning or a failure */
  fix?: string;
  /** a failure here makes the engine unusable: exit 3 instead of 1 */
  engine?: boolean;
  /** what --json carries besides the message (e.g. the runtimes offered and missing) */
  data?: Readonly<Record<string, unknown>>;
}

export const CHECK = {
  discovery: "engine discovery",
  engine: "docker engine",
  version: "engine version",
  socket: "socket permissions",
  baseImage: (lang: string) => `base image (${lang})`,
  config: "config",
  home: "MCPBOX_HOME",
  runtime: "hardened containers",
  image: (server: string) => `image (${server})`,
  tls: "TLS for builds",
} as const;

/** Oldest engine API tested: Docker 19.03 (init, pids limit, tmpfs, NanoCpus). Podman 4 reports 1.41. */
export const MIN_API = "1.40";

const START_DOCKER = "start Docker (Docker Desktop, `sudo systemctl start docker`, or `dockerd`), or set DOCKER_HOST";
const DOCKER_GROUP = "add your user to the docker group (sudo usermod -aG docker $USER, then log in again), or use rootless Docker";

/**
 * Which engine discover.ts found and from where (DOCKER_HOST, the Docker context, a desktop engine's socket), or,
 * when none, what to start on this OS. A context that cannot be read is a warning beside it. The engine check
 * beside it says whether the engine answers.
 */
export function discoveryCheck(d: Discovery, platform: NodeJS.Platform): CheckResult {
  const sentence = engineSentence(d, platform);
  const data = {
    ...(d.found ? { kind: d.found.kind, label: d.found.label, host: d.found.host, from: d.found.from } : {}),
    looked: d.looked.map((c) => c.host),
    ...(d.warning ? { warning: d.warning } : {}),
  };
  if (!d.found) return { name: CHECK.discovery, status: "warn", message: sentence, data }; // the sentence says what to start
  if (d.warning) return { name: CHECK.discovery, status: "warn", message: `${sentence}; ${d.warning}`, fix: "check the context with `docker context ls`, or set DOCKER_HOST", data };
  return { name: CHECK.discovery, status: "ok", message: sentence, data };
}

/** The engine by name (Docker or Podman: src/docker/runtimes.ts identifyEngine). */
export interface EngineName {
  kind: "Docker" | "Podman";
  name: string;
}

export function engineCheck(address: string, error?: { message: string; hint?: string | undefined }, identity?: EngineName): CheckResult {
  if (!error && identity) {
    return { name: CHECK.engine, status: "ok", message: `${identity.kind} reachable at ${address}`, data: { engine: identity.kind, product: identity.name } };
  }
  if (!error) return { name: CHECK.engine, status: "ok", message: `reachable at ${address}` };
  return { name: CHECK.engine, status: "fail", message: error.message, fix: error.hint ?? START_DOCKER, engine: true };
}

export interface VersionFacts {
  product: string;
  version: string;
  apiVersion: string;
  os: string;
  arch: string;
  cgroupVersion: string | undefined;
}

export function versionCheck(v: VersionFacts): CheckResult {
  const cgroup = v.cgroupVersion ? `, cgroup v${v.cgroupVersion}` : "";
  const message = `${v.product} ${v.version}, API ${v.apiVersion} (${v.os}/${v.arch}${cgroup})`;
  if (compareVersions(v.apiVersion, MIN_API) < 0) {
    return {
      name: CHECK.version,
      status: "fail",
      message: `${message}: API older than ${MIN_API}`,
      fix: "upgrade the engine to Docker 19.03 or newer (or Podman 4)",
      engine: true,
    };
  }
  return { name: CHECK.version, status: "ok", message };
}

/** Numeric comparison of dotted versions: "1.9" < "1.41". */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] || 0) - (pb[i] || 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

export type SocketFacts =
  | { kind: "remote"; address: string }
  | { kind: "unix"; path: string; state: "ok" | "missing" | "not-a-socket" | "no-permission" };

export function socketCheck(s: SocketFacts): CheckResult {
  const name = CHECK.socket;
  if (s.kind === "remote") return { name, status: "ok", message: `${s.address} is not a unix socket: nothing to check` };
  switch (s.state) {
    case "ok":
      return { name, status: "ok", message: `${s.path} is readable and writable` };
    case "missing":
      return { name, status: "fail", message: `no socket at ${s.path}`, fix: START_DOCKER, engine: true };
    case "not-a-socket":
      return { name, status: "fail", message: `${s.path} is not a socket`, fix: "point DOCKER_HOST at the engine's socket", engine: true };
    case "no-permission":
      return { name, status: "fail", message: `no permission to use ${s.path}`, fix: DOCKER_GROUP, engine: true };
  }
}

export interface BaseImageFacts {
  lang: "node" | "python";
  image: string;
  /** bytes, undefined when not present locally */
  size: number | undefined;
  /** template servers of the config that build on it */
  usedBy: string[];
}

export function baseImageCheck(b: BaseImageFacts): CheckResult {
  const name = CHECK.baseImage(b.lang);
  if (b.size !== undefined) return { name, status: "ok", message: `${b.image} (${Math.round(b.size / 1e6)} MB)` };
  const who = b.usedBy.length > 0 ? `, needed by ${b.usedBy.join(", ")}` : "";
  return {
    name,
    // only a failure when a configured server needs it; otherwise the first build would pull it
    status: b.usedBy.length > 0 ? "fail" : "warn",
    message: `${b.image} is not present locally${who}`,
    fix: `docker pull ${b.image}, or set build.baseImages.${b.lang} to an image you have`,
  };
}

export type ConfigFacts =
  | { state: "none"; message: string }
  | { state: "unloadable"; message: string; hint?: string | undefined }
  | { state: "loaded"; file: string; servers: number; errors: string[]; warnings: number };

export function configCheck(c: ConfigFacts): CheckResult {
  const name = CHECK.config;
  if (c.state === "none") return { name, status: "warn", message: c.message, fix: "run `mcpbox init` to create one, or pass -c <path>" };
  if (c.state === "unloadable") return { name, status: "fail", message: c.message, fix: c.hint ?? "fix the config file" };
  const counts = `${plural(c.servers, "server")}, ${plural(c.errors.length, "error")}, ${plural(c.warnings, "warning")}`;
  if (c.errors.length > 0) {
    return { name, status: "fail", message: `${c.file}: ${counts}; first: ${c.errors[0]}`, fix: "run `mcpbox validate` to see every problem" };
  }
  if (c.warnings > 0) return { name, status: "warn", message: `${c.file}: ${counts}`, fix: "run `mcpbox validate` to see the warnings" };
  return { name, status: "ok", message: `${c.file}: ${counts}` };
}

export function homeCheck(home: string, error?: string): CheckResult {
  if (!error) return { name: CHECK.home, status: "ok", message: `${home} is writable` };
  return {
    name: CHECK.home,
    status: "fail",
    message: `${home} is not writable: ${error}`,
    fix: "fix the folder's permissions, or set MCPBOX_HOME to a writable folder",
  };
}

export interface RuntimeFacts {
  /** the image the probe container used; undefined when no image was available */
  image: string | undefined;
  /** the engine refused the container */
  error?: string;
  /** the engine's create warnings */
  warnings: string[];
  /** limits the engine reports it cannot enforce */
  unsupported: string[];
}

export function runtimeCheck(r: RuntimeFacts): CheckResult {
  const name = CHECK.runtime;
  const what = "read-only root, cap-drop ALL, no-new-privileges, pids, memory = memory+swap";
  if (!r.image) {
    return { name, status: "warn", message: "not checked: no local image to create a container from", fix: "get the base images first (see above)" };
  }
  if (r.error) {
    return { name, status: "fail", message: `the engine refused a hardened container (${what}): ${r.error}`, fix: "use a Linux engine with cgroup limits; see `docker info` warnings" };
  }
  const problems = [...r.unsupported.map((u) => `no ${u} support`), ...r.warnings];
  if (problems.length > 0) {
    return { name, status: "warn", message: `accepted, but: ${problems.join("; ")}`, fix: "enable the missing cgroup controllers (see `docker info` warnings), or limits will not be enforced" };
  }
  return { name, status: "ok", message: `accepted ${what} (created from ${r.image}, removed)` };
}

/** A check that could not run because the engine is unusable. */
export const skipped = (name: string): CheckResult => ({ name, status: "warn", message: "not checked: the engine is unusable" });

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
