/**
 * `docker run [flags] image [args]` → an image server: flags become policy (mounts, network, secrets, limits, user,
 * entrypoint); the hardening flags mcpbox always applies are dropped; flags that would weaken isolation are dropped
 * with a note. Values of `-e NAME=value` are never copied: every -e becomes a secret read by name.
 */
import { Size } from "../../config/schema.ts";
import { isRootUser } from "../../config/checks.ts";
import { MountSet } from "./mounts.ts";
import { isEnvName } from "./secrets.ts";
import type { ImportEnv, ServerObject } from "./types.ts";

const VALUE_FLAGS = new Set(
  (
    "-v --volume --mount -e --env --env-file --network --net -m --memory --memory-swap --memory-reservation --cpus " +
    "--cpu-shares -c --cpuset-cpus --pids-limit -u --user --name -w --workdir --entrypoint -p --publish -l --label " +
    "--label-file --cap-add --cap-drop --security-opt --tmpfs --add-host --dns --dns-search --dns-option -h --hostname " +
    "--platform --pull --restart --ulimit --log-driver --log-opt --runtime --device --gpus --shm-size --ipc --pid --uts " +
    "--userns --cgroupns --cgroup-parent --stop-signal --stop-timeout --expose --link --network-alias --ip --ip6 " +
    "--mac-address --group-add --volumes-from --storage-opt --sysctl --oom-score-adj --blkio-weight -a --attach --cidfile " +
    "--health-cmd --health-interval --health-retries --health-timeout --health-start-period --isolation --domainname"
  ).split(" "),
);
const BOOL_FLAGS = new Set(
  "-i --interactive -t --tty --rm -d --detach --init --read-only --privileged --oom-kill-disable --no-healthcheck -P --publish-all -q --quiet --sig-proxy --disable-content-trust".split(" "),
);
/** mcpbox applies these itself, or they do not matter for a stdio server. */
const IGNORED = new Set("-i --interactive -t --tty --rm -d --detach --init --read-only --cap-drop --security-opt --name --pull -l --label --label-file --platform --sig-proxy -q --quiet --disable-content-trust -a --attach --log-driver --log-opt --restart --stop-signal --stop-timeout --cidfile --hostname -h --domainname".split(" "));

export interface DockerRunResult {
  server?: ServerObject;
  notes: string[];
  problem?: string;
}

interface Flag {
  name: string;
  value: string | undefined;
}

/** Splits `run` arguments into flags, the image and its arguments. */
export function parseRunArgs(args: readonly string[]): { flags: Flag[]; image?: string; rest: string[]; unknown?: string } {
  const flags: Flag[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return { flags, image: args[i + 1], rest: args.slice(i + 2) };
    if (!a.startsWith("-") || a === "-") return { flags, image: a, rest: args.slice(i + 1) };
    const eq = a.indexOf("=");
    if (eq > 0) {
      flags.push({ name: a.slice(0, eq), value: a.slice(eq + 1) });
    } else if (VALUE_FLAGS.has(a)) {
      flags.push({ name: a, value: args[++i] });
    } else if (BOOL_FLAGS.has(a)) {
      flags.push({ name: a, value: undefined });
    } else if (/^-[a-zA-Z]{2,}$/.test(a) && [...a.slice(1)].every((c) => BOOL_FLAGS.has(`-${c}`))) {
      for (const c of a.slice(1)) flags.push({ name: `-${c}`, value: undefined });
    } else if (/^-[a-zA-Z]$/.test(a) === false && /^-[a-zA-Z].+/.test(a) && VALUE_FLAGS.has(a.slice(0, 2))) {
      flags.push({ name: a.slice(0, 2), value: a.slice(2) }); // -eNAME, -v/a:/b
    } else {
      return { flags, rest: [], unknown: a };
    }
  }
  return { flags, rest: [] };
}

export function convertDockerRun(args: readonly string[], env: ImportEnv): DockerRunResult {
  const parsed = parseRunArgs(args);
  if (parsed.unknown) return { notes: [], problem: `it uses the docker flag ${parsed.unknown}, which mcpbox does not know` };
  if (!parsed.image) return { notes: [], problem: "the docker command names no image" };
  const server: ServerObject = { image: parsed.image };
  const notes: string[] = [];
  const mounts = new MountSet(env);
  const secrets: Record<string, { env: string }> = {};
  const limits: Record<string, string | number> = {};
  let network: unknown;
  for (const { name, value } of parsed.flags) {
    if (IGNORED.has(name)) continue;
    const v = value ?? "";
    switch (name) {
      case "-v":
      case "--volume":
        volume(v, mounts, notes);
        break;
      case "--mount":
        mountFlag(v, mounts, notes);
        break;
      case "-e":
      case "--env": {
        const key = v.split("=")[0]!;
        if (!isEnvName(key)) {
          notes.push(`-e ${JSON.stringify(key)} dropped: not a variable name`);
          break;
        }
        secrets[key] = { env: key };
        if (v.includes("=")) notes.push(`secret ${key}: its value was not copied; set ${key} where \`mcpbox serve\` runs`);
        break;
      }
      case "--network":
      case "--net":
        network = networkOf(v, notes);
        break;
      case "-m":
      case "--memory":
        if (Size.safeParse(v).success) limits.memory = v.toLowerCase();
        break;
      case "--cpus":
        if (Number(v) > 0 && Number.isFinite(Number(v))) limits.cpus = Number(v); // Infinity would be written as null
        break;
      case "--pids-limit":
        if (Number.isInteger(Number(v)) && Number(v) >= 8) limits.pids = Number(v);
        break;
      case "-u":
      case "--user":
        if (isRootUser(v)) notes.push(`--user ${v} dropped: mcpbox runs servers as 1000:1000, never root`);
        else server.user = v;
        break;
      case "--env-file":
        notes.push(`--env-file ${v} dropped: list its variables under secrets (values are never copied)`);
        break;
      case "--entrypoint":
        server.command = [v];
        break;
      default:
        notes.push(`${name}${value === undefined ? "" : ` ${value}`} dropped: not part of mcpbox's policy`);
    }
  }
  if (mounts.problems.length > 0) return { notes, problem: mounts.problems[0] };
  if (parsed.rest.length > 0) server.args = parsed.rest;
  if (mounts.mounts.length > 0) server.mounts = mounts.mounts;
  if (network === undefined) notes.push('network "bridge" as docker gave it by default; use "none" if it needs no network');
  server.network = network ?? "bridge";
  if (Object.keys(limits).length > 0) server.limits = limits;
  if (Object.keys(secrets).length > 0) server.secrets = secrets;
  return { server, notes };
}

function volume(spec: string, mounts: MountSet, notes: string[]): void {
  const parts = spec.split(":");
  const [source, target, opts] = parts.length > 3 && /^[A-Za-z]$/.test(parts[0]!) ? [`${parts[0]}:${parts[1]}`, parts[2], parts[3]] : parts;
  if (!source || !target) return void notes.push(`-v ${spec} dropped: an anonymous volume`);
  if (!/^(\/|~|[A-Za-z]:[\\/])/.test(source)) return void notes.push(`-v ${spec} dropped: named volumes are not supported, mount a folder`);
  // read-only unless the command asked for writes in so many words (docker's own default is read-write)
  const writable = (opts ?? "").split(",").includes("rw");
  if (mounts.add(source, target, writable ? false : undefined) && !writable && !(opts ?? "").split(",").includes("ro")) {
    notes.push(`-v ${spec} mounted read-only (docker's default is read-write): add :rw, or readOnly: false in the config, if the server writes there`);
  }
}

function mountFlag(spec: string, mounts: MountSet, notes: string[]): void {
  const kv = Object.fromEntries(spec.split(",").map((p) => [p.split("=")[0]!, p.split("=").slice(1).join("=")]));
  const type = kv.type ?? "volume";
  const source = kv.source ?? kv.src;
  const target = kv.target ?? kv.destination ?? kv.dst;
  if (type !== "bind" || !source || !target) return void notes.push(`--mount ${spec} dropped: only bind mounts are supported`);
  const flag = kv.readonly ?? kv.ro;
  const writable = flag !== undefined && ["0", "false"].includes(flag); // read-only unless readonly=false is written out
  if (mounts.add(source, target, writable ? false : undefined) && flag === undefined) {
    notes.push(`--mount ${spec} mounted read-only (docker's default is read-write): add readonly=false, or readOnly: false in the config, if the server writes there`);
  }
}

function networkOf(v: string, notes: string[]): unknown {
  if (v === "none" || v === "bridge") return v;
  if (v === "default") return "bridge";
  if (v === "host" || v.startsWith("container:")) {
    notes.push(`--network ${v} replaced by "bridge": sharing another network stack is refused by default`);
    return "bridge";
  }
  return { network: v };
}
