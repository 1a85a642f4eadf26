/**
 * The run policy (SPEC 2.2) as container create options and as the equivalent `docker run` flags. Pure: dockerode is
 * imported for its types only. Both functions derive from one list of settings so they cannot drift apart.
 */
import os from "node:os";
import type { ContainerCreateOptions } from "dockerode";
import type { ResolvedServer } from "../config/resolve.ts";
import { McpboxError } from "../errors.ts";
import { LABEL, containerLabels } from "./labels.ts";

export interface RunContext {
  session: string;
  configHash: string;
  ownerPid: number;
  image: string;
  /** the host ownerPid lives on; default: this host's name */
  ownerHost?: string;
}

/**
 * Explicit rlimits: Podman otherwise sets values above what some machines allow (ENVIRONMENT). With every capability
 * dropped a container can only lower the engine's own hard limits (a nofile of 65536 failed here under a hard 20000),
 * so these stay modest. nproc counts every process of the uid on the host, hence not lower.
 */
export const ULIMITS = [
  { Name: "nofile", Soft: 8192, Hard: 8192 },
  { Name: "nproc", Soft: 8192, Hard: 8192 },
] as const;

export const SECURITY_OPT = "no-new-privileges:true";

/**
 * The gateway reads a server's stdout and stderr on the attach stream; the engine keeps no log of them. Its default
 * driver (json-file, no size limit, on Docker and Podman) wrote every byte a server printed to the host's disk until
 * the container went: a server flooding stderr filled it, and its answers (what it read with a secret) lay there.
 */
export const NO_ENGINE_LOG = { Type: "none", Config: {} } as const;

/**
 * A server's network when the gateway made it: an allowlisted server's way out (src/egress startEgress: the
 * forwarder's namespace and the proxy variables), or a "bridge" server's own network (server-network.ts, no env).
 */
export interface EgressWiring {
  networkMode: string;
  env: Readonly<Record<string, string>>;
}

/** Container create options with the hardened defaults of SPEC 2.2 and the labels of 4.6. */
export function containerOptions(
  server: ResolvedServer,
  ctx: RunContext,
  secretEnv: Readonly<Record<string, string>>,
  egress?: EgressWiring,
): ContainerCreateOptions {
  const { entrypoint, cmd } = commandLine(server);
  // the proxy variables last: a server's own HTTPS_PROXY could only point where it cannot reach
  const env = [...envPairs(server.env), ...envPairs(secretEnv), ...envPairs(egress?.env ?? {})];
  return {
    name: containerName(ctx.session, server.name),
    Image: ctx.image,
    ...(entrypoint ? { Entrypoint: entrypoint } : {}),
    ...(cmd ? { Cmd: cmd } : {}),
    Env: env,
    User: server.user,
    Labels: containerLabels({ ...ctx, server: server.name, ownerHost: ctx.ownerHost ?? os.hostname() }),
    Tty: false,
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    HostConfig: {
      // an allowlisted server joins its forwarder's namespace (loopback only), a "bridge" one its own network
      NetworkMode: egress?.networkMode ?? networkMode(server),
      ReadonlyRootfs: server.readOnlyRoot,
      CapDrop: ["ALL"],
      SecurityOpt: [SECURITY_OPT],
      Init: true,
      Memory: server.limits.memoryBytes,
      MemorySwap: server.limits.memoryBytes,
      NanoCpus: nanoCpus(server.limits.cpus),
      Tmpfs: { "/tmp": tmpfsOptions(server) },
      Binds: server.mounts.map(bindSpec),
      ...processLimits(server),
      // runtime "gvisor": the engine's runsc; none asked for "runc", the engine's default
      ...(server.engineRuntime ? { Runtime: server.engineRuntime } : {}),
      LogConfig: NO_ENGINE_LOG,
      // no AutoRemove: it loses the OOM flag; the container is removed explicitly after it stops (ENVIRONMENT)
    },
  };
}

/**
 * The equivalent `docker run` argv without the leading "docker", for clients that run servers with no gateway.
 * Secrets are passed by name only (`-e NAME`: docker reads the value from its own environment). No session or owner
 * pid labels: nobody owns these containers but the client, and `--rm` removes them.
 */
export function dockerRunArgs(server: ResolvedServer, ctx: { image: string; configHash?: string }): string[] {
  if (server.egress) throw directEgressError([server.name]);
  const { entrypoint, cmd } = commandLine(server);
  const l = server.limits;
  const args = ["run", "-i", "--rm"];
  // "bridge" stays docker's shared bridge here: a plain `docker run` has no gateway to make a network of the server's own
  args.push("--network", networkMode(server));
  if (server.readOnlyRoot) args.push("--read-only");
  args.push("--user", server.user, "--cap-drop", "ALL", "--security-opt", SECURITY_OPT, "--init", "--log-driver", NO_ENGINE_LOG.Type);
  args.push("--memory", sizeArg(l.memory, l.memoryBytes), "--memory-swap", sizeArg(l.memory, l.memoryBytes));
  const processes = processLimits(server);
  args.push("--cpus", String(l.cpus), "--pids-limit", String(processes.PidsLimit));
  if (server.engineRuntime) args.push("--runtime", server.engineRuntime);
  args.push("--tmpfs", `/tmp:${tmpfsOptions(server)}`);
  for (const m of server.mounts) args.push("-v", bindSpec(m));
  for (const u of processes.Ulimits) args.push("--ulimit", `${u.Name}=${u.Soft}:${u.Hard}`);
  for (const pair of envPairs(server.env)) args.push("-e", pair);
  for (const name of Object.keys(server.secrets)) args.push("-e", name);
  args.push("--label", `${LABEL.managed}=true`, "--label", `${LABEL.server}=${server.name}`);
  if (ctx.configHash) args.push("--label", `${LABEL.configHash}=${ctx.configHash}`);
  if (entrypoint) args.push("--entrypoint", entrypoint[0]!);
  // `--` ends docker's options: whatever the image reference is, docker reads it as the image, never as a flag
  args.push("--", ctx.image, ...(cmd ?? []));
  return args;
}

export interface ProcessLimits {
  PidsLimit: number;
  Ulimits: { Name: string; Soft: number; Hard: number }[];
}

/**
 * `limits.pids` as the engine options that enforce it. runc: the pids cgroup counts the container's own processes.
 * Under runsc the engine's pids limit bounds the sandbox's host threads instead: the idle sandbox holds about 45 and each
 * process in it costs about 8 more (measured, ptrace platform), so at 64 a bash pipeline ran it out and gVisor's Go
 * runtime died on a failed thread creation (exit 2, output lost). gVisor's own kernel counts the processes and threads
 * of the sandbox's uid against RLIMIT_NPROC, so nproc carries limits.pids there (fork and clone fail with EAGAIN, as
 * under the pids cgroup), and the engine's limit stays as a backstop well above it.
 */
export function processLimits(server: Pick<ResolvedServer, "runtime" | "limits">): ProcessLimits {
  const pids = server.limits.pids;
  if (server.runtime !== "gvisor") return { PidsLimit: pids, Ulimits: ULIMITS.map((u) => ({ ...u })) };
  return {
    PidsLimit: GVISOR_SANDBOX_PIDS + GVISOR_PIDS_PER_TASK * pids,
    Ulimits: ULIMITS.map((u) => (u.Name === "nproc" ? { Name: u.Name, Soft: pids, Hard: pids } : { ...u })),
  };
}

/** host threads of an idle runsc sandbox (about 45 measured), with room */
const GVISOR_SANDBOX_PIDS = 128;
/** host threads per process in the sandbox (about 8 measured; a thread costs less) */
const GVISOR_PIDS_PER_TASK = 12;

/** A plain `docker run` has no egress proxy: an allowlist would silently become "none" (or, edited, everything). */
export function directEgressError(servers: readonly string[], file?: string): McpboxError {
  const where = servers.map((s) => `servers.${s}.network`).join(", ");
  return new McpboxError("config", `${file ? `${file}: ` : ""}${where}: an egress allowlist cannot be enforced by a plain \`docker run\` (--mode direct)`, {
    hint: "use --mode gateway (the default), where mcpbox runs the egress proxy that enforces it",
  });
}

/** `mcpbox-<session>-<server>`, cut to characters and a length Docker accepts. */
export function containerName(session: string, server: string): string {
  const clean = (s: string, max: number) => s.replace(/[^a-zA-Z0-9_.-]/g, "-").slice(0, max);
  return `mcpbox-${clean(session, 24)}-${clean(server, 64)}`;
}

export function networkMode(server: ResolvedServer): string {
  return typeof server.network === "string" ? server.network : server.network.network;
}

/** `command` replaces the entrypoint; as `--entrypoint` takes one word, the rest of it goes first in Cmd. */
function commandLine(server: ResolvedServer): { entrypoint?: [string]; cmd?: string[] } {
  const [first, ...rest] = server.command ?? [];
  if (first === undefined) return server.args.length > 0 ? { cmd: [...server.args] } : {};
  return { entrypoint: [first], cmd: [...rest, ...server.args] };
}

function envPairs(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

function tmpfsOptions(server: ResolvedServer): string {
  return `rw,noexec,nosuid,nodev,size=${server.limits.tmpfsBytes}`;
}

function bindSpec(m: { source: string; target: string; readOnly: boolean }): string {
  return `${m.source}:${m.target}:${m.readOnly ? "ro" : "rw"}`;
}

function nanoCpus(cpus: number): number {
  return Math.round(cpus * 1e9);
}

/** Keep the user's "512m" when docker reads it the same way; otherwise plain bytes. */
function sizeArg(text: string, bytes: number): string {
  return /^\d+[bkmg]?$/i.test(text.trim()) ? text.trim().toLowerCase() : String(bytes);
}
