/**
 * Defaults (SPEC 2.2) are filled in here and only here: a parsed config becomes a read-only ResolvedConfig
 * that the rest of the program uses. Pure: paths are resolved against the config's folder, nothing is read.
 */
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { ParsedConfig, ParsedServer, PolicyConfig } from "./schema.ts";
import type { Language } from "./_types.ts";

export type { Language } from "./_types.ts";

export type ResolvedSource =
  | { readonly kind: "image"; readonly image: string }
  | { readonly kind: "template"; readonly template: "node" | "python"; readonly package: string }
  | {
      readonly kind: "build";
      readonly context: string;
      readonly dockerfile: string;
      readonly args: Readonly<Record<string, string>>;
    }
  | { readonly kind: "builtin"; readonly builtin: "code-runner" };

export type ResolvedNetwork = "none" | "bridge" | "host" | `container:${string}` | { readonly network: string };

/** An allowlisted server's egress (SPEC 10): its own container keeps network "none"; the proxy decides these. */
export interface ResolvedEgress {
  readonly allow: readonly string[];
}

export interface ResolvedMount {
  readonly source: string; // absolute host path
  readonly target: string; // absolute container path
  readonly readOnly: boolean;
}

export interface ResolvedLimits {
  readonly memory: string;
  readonly memoryBytes: number;
  readonly cpus: number;
  readonly pids: number;
  readonly tmpfs: string;
  readonly tmpfsBytes: number;
}

export type ResolvedSecret = { readonly env: string } | { readonly file: string };

export interface ResolvedServer {
  readonly name: string;
  readonly source: ResolvedSource;
  readonly command: readonly string[] | undefined;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly secrets: Readonly<Record<string, ResolvedSecret>>;
  readonly mounts: readonly ResolvedMount[];
  /** the server container's own network; "none" for an allowlisted server, whose way out is `egress` */
  readonly network: ResolvedNetwork;
  /** set when network is { allow: [...] }: the egress proxy and forwarder (src/egress) must run beside the server */
  readonly egress: ResolvedEgress | undefined;
  readonly limits: ResolvedLimits;
  readonly user: string;
  readonly readOnlyRoot: boolean;
  readonly tools: { readonly allow: readonly string[] | undefined; readonly deny: readonly string[] };
  readonly approve: readonly string[];
  readonly timeouts: { readonly startupMs: number; readonly callMs: number; readonly runMs: number };
  /** null when prefix: false */
  readonly prefix: string | null;
  readonly startup: "eager" | "lazy";
  readonly restart: "on-failure" | "never";
  readonly pathArguments: readonly string[];
  readonly dangerous: {
    readonly allowRoot: boolean;
    readonly allowHostNetwork: boolean;
    readonly allowDockerSocket: boolean;
    readonly allowSensitiveMounts: boolean;
    readonly allowWritableConfig: boolean;
    readonly allowAnyEgress: boolean;
  };
  /** which server-to-client requests the server may make (SPEC 9) */
  readonly clientRequests: { readonly sampling: boolean; readonly elicitation: boolean; readonly roots: boolean };
  /** "gvisor": the engine's runsc (a user-space kernel); "runc": the engine's default runtime */
  readonly runtime: RuntimeKind;
  /** the engine's name of that runtime (`--runtime`, HostConfig.Runtime); undefined: the engine's default */
  readonly engineRuntime: string | undefined;
  /** code-runner only */
  readonly languages: readonly Language[];
  readonly maxOutputBytes: number;
  /** warm containers per language, runs at once, runs waiting at most */
  readonly pool: { readonly warm: number; readonly maxConcurrent: number; readonly maxQueued: number };
}

export type RuntimeKind = "runc" | "gvisor";

export interface ResolvedConfig {
  /** absolute path of the config file */
  readonly file: string;
  readonly dir: string;
  /** short hash of the whole parsed config; labels containers and images */
  readonly hash: string;
  readonly servers: readonly ResolvedServer[];
  readonly build: {
    readonly caCerts: string | undefined;
    readonly baseImages: { readonly node: string; readonly python: string };
    readonly registry: string | undefined;
  };
  readonly audit: { readonly enabled: boolean; readonly path: string | undefined };
  /** the engine's names of the runtimes (engine.runtimes); runc undefined: the engine's default */
  readonly engine: { readonly runtimes: { readonly runc: string | undefined; readonly gvisor: string } };
}

export const DEFAULTS = {
  memory: "512m",
  cpus: 1,
  pids: 256,
  tmpfs: "64m",
  user: "1000:1000",
  startupMs: 60_000,
  callMs: 120_000,
  runMs: 30_000,
  maxOutputBytes: 1024 * 1024,
  pool: { warm: 0, maxConcurrent: 4, maxQueued: 16 },
  baseImages: { node: "node:24-bookworm-slim", python: "python:3.12-slim-bookworm" },
  /** Debian's and gVisor's own name for the runtime (ENVIRONMENT "Other engines") */
  gvisorRuntime: "runsc",
} as const;

const UNITS: Record<string, number> = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** "512m" -> bytes (binary units, as Docker reads them). */
export function parseSize(size: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([bkmg])?/i.exec(size.trim());
  if (!m) throw new Error(`not a size: ${size}`);
  return Math.round(Number(m[1]) * UNITS[(m[2] ?? "b").toLowerCase()]!);
}

export function resolveConfig(parsed: ParsedConfig, file: string): ResolvedConfig {
  const dir = path.dirname(file);
  const defaults = parsed.defaults ?? {};
  const runtimes = { runc: parsed.engine?.runtimes?.runc, gvisor: parsed.engine?.runtimes?.gvisor ?? DEFAULTS.gvisorRuntime };
  const servers = Object.entries(parsed.servers).map(([name, s]) => resolveServer(name, s, defaults, dir, runtimes));
  return Object.freeze({
    file,
    dir,
    hash: configHash(parsed),
    servers: Object.freeze(servers),
    build: {
      caCerts: parsed.build?.caCerts === undefined ? undefined : hostPath(dir, parsed.build.caCerts),
      baseImages: { ...DEFAULTS.baseImages, ...parsed.build?.baseImages },
      registry: parsed.build?.registry,
    },
    audit: { enabled: parsed.audit?.enabled ?? true, path: parsed.audit?.path && hostPath(dir, parsed.audit.path) },
    engine: { runtimes },
  });
}

export function configHash(parsed: unknown): string {
  // node:crypto when a hash is made, not when the config code loads: loading it costs ~8 ms CPU, and validate never hashes (issue 15)
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return createHash("sha256").update(stableJson(parsed)).digest("hex").slice(0, 12);
}

/** JSON with sorted keys, so the hash does not depend on key order. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

function resolveServer(
  name: string,
  s: ParsedServer,
  d: PolicyConfig,
  dir: string,
  runtimes: ResolvedConfig["engine"]["runtimes"],
): ResolvedServer {
  const runtime = s.runtime ?? d.runtime ?? "runc";
  const limits = { ...d.limits, ...s.limits };
  const memory = limits.memory ?? DEFAULTS.memory;
  const tmpfs = limits.tmpfs ?? DEFAULTS.tmpfs;
  const timeouts = { ...d.timeouts, ...s.timeouts };
  const dangerous = { ...d.dangerous, ...s.dangerous };
  const tools = { ...d.tools, ...s.tools };
  const prefix = s.prefix ?? d.prefix;
  const isRunner = s.builtin !== undefined;
  return Object.freeze({
    name,
    source: resolveSource(s, dir),
    command: s.command,
    args: s.args ?? [],
    env: s.env ?? {},
    secrets: Object.fromEntries(
      Object.entries(s.secrets ?? {}).map(([k, v]) => [k, "file" in v ? { file: hostPath(dir, v.file) } : v]),
    ),
    mounts: [...(d.mounts ?? []), ...(s.mounts ?? [])].map((m) => ({
      source: hostPath(dir, m.source),
      target: path.posix.normalize(m.target),
      readOnly: m.readOnly !== false,
    })),
    ...resolveNetwork(s.network ?? d.network ?? "none"),
    limits: {
      memory,
      memoryBytes: parseSize(memory),
      cpus: limits.cpus ?? DEFAULTS.cpus,
      pids: limits.pids ?? DEFAULTS.pids,
      tmpfs,
      tmpfsBytes: parseSize(tmpfs),
    },
    user: String(s.user ?? d.user ?? DEFAULTS.user),
    readOnlyRoot: s.readOnlyRoot ?? d.readOnlyRoot ?? true,
    tools: { allow: tools.allow, deny: tools.deny ?? [] },
    approve: s.approve ?? d.approve ?? [],
    timeouts: {
      startupMs: timeouts.startupMs ?? DEFAULTS.startupMs,
      callMs: timeouts.callMs ?? DEFAULTS.callMs,
      runMs: timeouts.runMs ?? DEFAULTS.runMs,
    },
    prefix: prefix === false ? null : (prefix ?? name),
    startup: s.startup ?? d.startup ?? "eager",
    restart: s.restart ?? d.restart ?? "on-failure",
    pathArguments: [...(d.pathArguments ?? []), ...(s.pathArguments ?? [])],
    dangerous: {
      allowRoot: dangerous.allowRoot ?? false,
      allowHostNetwork: dangerous.allowHostNetwork ?? false,
      allowDockerSocket: dangerous.allowDockerSocket ?? false,
      allowSensitiveMounts: dangerous.allowSensitiveMounts ?? false,
      allowWritableConfig: dangerous.allowWritableConfig ?? false,
      allowAnyEgress: dangerous.allowAnyEgress ?? false,
    },
    clientRequests: {
      sampling: s.clientRequests?.sampling ?? d.clientRequests?.sampling ?? false,
      elicitation: s.clientRequests?.elicitation ?? d.clientRequests?.elicitation ?? true,
      roots: s.clientRequests?.roots ?? d.clientRequests?.roots ?? true,
    },
    runtime,
    engineRuntime: runtimes[runtime],
    languages: isRunner ? (s.languages ?? (["python", "node", "bash"] satisfies Language[])) : [],
    maxOutputBytes: s.maxOutputBytes ?? DEFAULTS.maxOutputBytes,
    pool: {
      warm: typeof s.pool === "number" ? s.pool : (s.pool?.warm ?? DEFAULTS.pool.warm),
      maxConcurrent: (typeof s.pool === "object" ? s.pool.maxConcurrent : undefined) ?? DEFAULTS.pool.maxConcurrent,
      maxQueued: (typeof s.pool === "object" ? s.pool.maxQueued : undefined) ?? DEFAULTS.pool.maxQueued,
    },
  });
}

function resolveNetwork(n: NonNullable<ParsedServer["network"]>): { network: ResolvedNetwork; egress: ResolvedEgress | undefined } {
  if (typeof n === "object" && "allow" in n) return { network: "none", egress: Object.freeze({ allow: Object.freeze(n.allow.map((e) => e.trim())) }) };
  return { network: n, egress: undefined };
}

/** A host path from the config: `~` is the home folder, relative paths start at the config's folder. */
export function hostPath(dir: string, p: string, home: string = os.homedir()): string {
  if (p === "~") return home;
  if (p.startsWith("~/")) return path.join(home, p.slice(2));
  return path.resolve(dir, p);
}

function resolveSource(s: ParsedServer, dir: string): ResolvedSource {
  if (s.image !== undefined) return { kind: "image", image: s.image };
  if (s.template !== undefined) return { kind: "template", template: s.template, package: s.package ?? "" };
  if (s.build !== undefined) {
    const context = hostPath(dir, s.build.context);
    return {
      kind: "build",
      context,
      dockerfile: s.build.dockerfile ?? "Dockerfile",
      args: s.build.args ?? {},
    };
  }
  return { kind: "builtin", builtin: "code-runner" };
}
