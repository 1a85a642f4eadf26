/**
 * One client entry → one sandbox server: `npx pkg` → node template, `uvx pkg` → python template, `docker run` →
 * image server. Everything else (local scripts, interpreters, remote servers) is kept as a comment that says why.
 */
import path from "node:path";
import { isLocalPackage } from "../../config/checks.ts";
import type { ForeignEntry } from "../types.ts";
import { convertDockerRun } from "./docker-run.ts";
import { MountSet } from "./mounts.ts";
import { credentialArgs, redactedCommand, splitEnv } from "./secrets.ts";
import type { Conversion, ImportEnv, ServerObject } from "./types.ts";

interface Launch {
  template: "node" | "python";
  package: string;
  args: string[];
  notes: string[];
}

export function convertEntry(name: string, entry: ForeignEntry, env: ImportEnv): Conversion {
  const shown = redactedCommand(entry.command, entry.args);
  const skip = (reason: string): Conversion => ({ kind: "skipped", name, reason, shown: entry.remote ?? shown });
  if (entry.remote) return skip("a remote server (nothing runs locally to sandbox); keep it in the client");
  if (!entry.command) return skip("no command");
  const program = path.basename(entry.command).replace(/\.(cmd|exe|bat)$/i, "").toLowerCase();
  if (program === "docker" || program === "podman") return dockerServer(name, entry, env, skip);
  const launch = program === "npx" ? npxLaunch(entry.args) : program === "uvx" ? uvxLaunch(entry.args) : undefined;
  if (!launch) return skip(whyNot(program));
  if (typeof launch === "string") return skip(launch);
  return templateServer(name, launch, entry, env, skip);
}

function whyNot(program: string): string {
  if (/^(node|python\d?(\.\d+)?|deno|bun|uv|ruby|java|go)$/.test(program)) {
    return `runs ${program} with local files; sandbox it with a template and a local package, or build: { context }`;
  }
  return `${program} is not npx, uvx or docker run; give it an image or a build: { context } by hand`;
}

function templateServer(
  name: string,
  launch: Launch,
  entry: ForeignEntry,
  env: ImportEnv,
  skip: (reason: string) => Conversion,
): Conversion {
  const notes = [...launch.notes];
  if (isLocalPackage(launch.package) && !env.exists(launch.package)) return skip(`${launch.package} does not exist on this machine`);
  const mounts = new MountSet(env);
  const secretIdx = new Set(credentialArgs(launch.args));
  const args = mounts.rewrite(launch.args.filter((_, i) => !secretIdx.has(i)));
  if (secretIdx.size > 0) notes.push("an argument that looked like a credential was removed: pass it as a secret (env) instead");
  const split = splitEnv(entry.env);
  const plainEnv = Object.fromEntries(Object.entries(split.env).map(([k, v]) => [k, mounts.rewrite([v])[0]!]));
  if (mounts.problems.length > 0) return skip(mounts.problems[0]!);
  const server: ServerObject = { template: launch.template, package: launch.package };
  if (args.length > 0) server.args = args;
  if (Object.keys(plainEnv).length > 0) server.env = plainEnv;
  if (Object.keys(split.secrets).length > 0) server.secrets = split.secrets;
  if (mounts.mounts.length > 0) {
    server.mounts = mounts.mounts;
    notes.push("mounts are read-only: add readOnly: false to a mount the server must write to");
  }
  if (server.secrets) {
    server.network = "bridge";
    notes.push('network "bridge" because it holds credentials for a remote service; use "none" if it needs no network');
  } else notes.push('no network (the default): add network: "bridge" if it needs the internet');
  return { kind: "converted", name, server, notes: [...notes, ...split.notes] };
}

function dockerServer(name: string, entry: ForeignEntry, env: ImportEnv, skip: (reason: string) => Conversion): Conversion {
  const [sub, ...rest] = entry.args;
  const runArgs = sub === "run" ? rest : sub === "container" && rest[0] === "run" ? rest.slice(1) : undefined;
  if (!runArgs) return skip(`docker ${sub ?? ""} is not docker run`.trim());
  const result = convertDockerRun(runArgs, env);
  if (result.problem || !result.server) return skip(result.problem ?? "not convertible");
  const split = splitEnv(entry.env);
  const server = result.server;
  const secrets = { ...(server.secrets as Record<string, { env: string }> | undefined) };
  // the client's env feeds docker's `-e NAME`: a reference or credential there is the secret; a plain value is env
  const plain: Record<string, string> = {};
  for (const [k, v] of Object.entries(split.secrets)) if (Object.hasOwn(secrets, k)) secrets[k] = v;
  for (const [k, v] of Object.entries(split.env)) {
    if (!Object.hasOwn(secrets, k)) continue; // own keys only: the client's env `toString` is no -e of the command
    delete secrets[k];
    plain[k] = v;
  }
  if (Object.keys(plain).length > 0) server.env = plain;
  delete server.secrets;
  if (Object.keys(secrets).length > 0) server.secrets = secrets;
  const credentialIdx = new Set(credentialArgs((server.args as string[] | undefined) ?? []));
  if (credentialIdx.size > 0) {
    server.args = (server.args as string[]).filter((_, i) => !credentialIdx.has(i));
    result.notes.push("an argument that looked like a credential was removed: pass it as a secret (env) instead");
  }
  const relevant = split.notes.filter((n) => !/^secret (\w+):/.test(n) || Object.hasOwn(secrets, /^secret (\w+):/.exec(n)![1]!));
  return { kind: "converted", name, server, notes: [...new Set([...result.notes, ...relevant])] };
}

const NPX_BOOL = new Set(["-y", "--yes", "-q", "--quiet", "--no", "--prefer-offline", "--prefer-online", "--no-install", "--ignore-existing"]);

/** `npx [-y] [-p pkg] pkg[@ver] args...` */
export function npxLaunch(args: readonly string[]): Launch | string {
  let pkg: string | undefined;
  const notes: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (NPX_BOOL.has(a)) continue;
    if (a === "--") continue;
    if (a === "-p" || a === "--package") {
      pkg = args[++i];
      continue;
    }
    if (a.startsWith("--package=")) {
      pkg = a.slice("--package=".length);
      continue;
    }
    if (a.startsWith("-")) return `npx option ${a} is not understood`;
    if (pkg) {
      notes.push(`npx ran the command ${a} of ${pkg}: check that the package's default binary is that one`);
      return { template: "node", package: pkg, args: args.slice(i + 1), notes };
    }
    return { template: "node", package: a, args: args.slice(i + 1), notes };
  }
  return "npx names no package";
}

const UVX_VALUE = new Set(["--from", "--with", "--with-editable", "--with-requirements", "--python", "-p", "--index", "--index-url", "--default-index", "--extra-index-url", "-c", "--constraint", "--override", "--directory", "--project", "--cache-dir"]);

/** `uvx [--from pkg] pkg-or-cmd args...`; `pkg@ver` becomes `pkg==ver`. */
export function uvxLaunch(args: readonly string[]): Launch | string {
  let from: string | undefined;
  const notes: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const [flag, inline] = a.startsWith("--") && a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    if (UVX_VALUE.has(flag)) {
      const value = inline ?? args[++i];
      if (flag === "--from") from = value;
      else notes.push(`uvx ${flag} ${value ?? ""} dropped: the python template installs one package`.replace("  ", " "));
      continue;
    }
    if (a.startsWith("-")) continue; // uvx's switches (--quiet, --refresh, --offline, ...) change nothing here
    const spec = from ?? a;
    if (/^(git\+|https?:)/.test(spec)) return `uvx installs ${spec} from a URL; build an image for it by hand`;
    if (from && from.split(/[=@<>[]/)[0] !== a) notes.push(`uvx ran the command ${a} of ${from}: check that the package's default script is that one`);
    return { template: "python", package: pythonSpec(spec), args: args.slice(i + 1), notes };
  }
  return "uvx names no package";
}

function pythonSpec(spec: string): string {
  if (isLocalPackage(spec)) return spec;
  const at = /^([A-Za-z0-9._-]+(?:\[[^\]]*\])?)@(.+)$/.exec(spec);
  return at && at[2] !== "latest" ? `${at[1]}==${at[2]}` : at ? at[1]! : spec;
}
