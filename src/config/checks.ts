/**
 * Policy checks of SPEC 2.3 that the schema alone cannot express: forbidden mounts, missing paths, root, host
 * network, literal credentials, prefix collisions. Each refusal names the `dangerous` opt-in that lifts it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ParsedConfig, ParsedServer } from "./schema.ts";
import type { Problem } from "./problems.ts";
import { hostPath } from "./resolve.ts";
import { looksLikeCredential, credentialKeyName } from "./_credentials.ts";
import { denyReason, type Danger, type DenyEnv } from "./_denylist.ts";
import { checkMounts, checkNesting, type MountEnv } from "./_mount-checks.ts";
import { importedModules } from "./_import.ts";
import { checkIdentity } from "./_identity-checks.ts";
import { checkEgress } from "./_egress-checks.ts";

export { isRootUser } from "./_identity-checks.ts";

export interface CheckEnv {
  home: string;
  exists: (p: string) => boolean;
  realpath: (p: string) => string;
  /** XDG_RUNTIME_DIR, DOCKER_HOST, MCPBOX_HOME, XDG_CONFIG_HOME, APPDATA (default: none set) */
  vars?: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
  /** does the file system holding p ignore case? (default: no) */
  caseInsensitive?: (p: string) => boolean;
  /** the local modules a config file imported, itself included (default: the file alone) */
  modules?: (file: string) => readonly string[];
  /**
   * Why the engine cannot mount this folder (Docker Desktop's file sharing), or undefined. Given by the command layer
   * from the engine it discovered (src/cli/commands/validate.ts); absent: not checked.
   */
  fileSharing?: (source: string) => string | undefined;
  /** the names in a folder, or undefined (default: not asked, each name is looked up with exists) */
  entries?: (dir: string) => readonly string[] | undefined;
}

// one env serves one load or validate: each writable mount checks the same ~50 guarded paths (most missing, so
// each realpath threw), 40 mounts made 2000 of them and half of validate's time (issue 15); asked once per path now
export const realEnv = (home: string = os.homedir()): CheckEnv => ({
  home,
  exists: (p) => fs.existsSync(p),
  realpath: once(realpathOrSelf),
  vars: process.env,
  platform: process.platform,
  caseInsensitive: once((p) => isCaseInsensitive(p, process.platform)),
  modules: (file) => importedModules(file),
  entries: (dir) => {
    try {
      return fs.readdirSync(dir);
    } catch {
      return undefined;
    }
  },
});

function once<T>(f: (p: string) => T): (p: string) => T {
  const seen = new Map<string, T>();
  return (p) => {
    if (!seen.has(p)) seen.set(p, f(p));
    return seen.get(p)!;
  };
}

// most paths asked about do not exist (guarded paths, denied paths): a failed realpath throws, and making that error
// cost more than the look-up (issue 15); existsSync answers without one, and a path it cannot see has no realpath.
// On Linux the C library's realpath(3) answers (the kernel's own view of the links, what the engine mounts), a
// quarter of the instructions of Node's JavaScript walk. That walk resolves a link's text lexically (`e/..` with e a
// link is taken as the link's own folder; the kernel goes up from e's target): a hostile repository's mount could
// name the engine socket's folder that way (test/security/link-dotdot.test.ts). macOS: the walk's answer, with the
// case as written, unless realpath(3) says another place; Windows keeps the walk (its native answer changes drive
// forms; SECURITY.md, known limits)
const realpathOf =
  process.platform === "linux" ? fs.realpathSync.native : process.platform === "darwin" ? darwinRealpath : fs.realpathSync;

/** realpath(3) decides (it throws only for what the kernel cannot reach); the walk, which can throw where the kernel goes on, only lends its case. */
function darwinRealpath(p: string): string {
  const native = fs.realpathSync.native(p);
  let walk: string;
  try {
    walk = fs.realpathSync(p);
  } catch {
    return native;
  }
  return physicalOrWalk(walk, native);
}

/** macOS: the JavaScript walk's answer when realpath(3) names the same place (they differ in case only), else realpath(3)'s. */
export function physicalOrWalk(walk: string, native: string): string {
  return walk.toLowerCase() === native.toLowerCase() ? walk : native;
}
function realpathOrSelf(p: string): string {
  if (!fs.existsSync(p)) return p;
  try {
    return realpathOf(p);
  } catch {
    return p;
  }
}

/** macOS and Windows fold case by default; elsewhere ask the file system: does the path with its case flipped exist as the same file? */
export function isCaseInsensitive(p: string, platform: NodeJS.Platform): boolean {
  if (platform === "darwin" || platform === "win32") return true;
  let at = path.resolve(p);
  while (!/[a-z]/i.test(path.basename(at)) && path.dirname(at) !== at) at = path.dirname(at);
  const base = path.basename(at);
  const flipped = path.join(path.dirname(at), [...base].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join(""));
  try {
    // throwIfNoEntry: a missing flipped name (the usual answer) is no error to make, and then the path itself need
    // not be asked
    const b = fs.statSync(flipped, { throwIfNoEntry: false });
    if (b === undefined) return false;
    const a = fs.statSync(at, { throwIfNoEntry: false });
    return a !== undefined && a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}

export type { Danger } from "./_denylist.ts";

/** Why mounting `source` (absolute, symlinks resolved) would hand over the host, or undefined. */
export function mountDanger(source: string, home: string, env: Partial<DenyEnv> = {}): Danger | undefined {
  return denyReason(source, {
    home,
    vars: env.vars ?? process.env,
    realpath: env.realpath ?? realpathOrSelf,
    caseInsensitive: env.caseInsensitive ?? ((p) => isCaseInsensitive(p, process.platform)),
  });
}

export function checkConfig(config: ParsedConfig, file: string, env: CheckEnv = realEnv()): Problem[] {
  const dir = path.dirname(file);
  const problems: Problem[] = [];
  const d = config.defaults ?? {};
  const prefixes = new Map<string, string>();
  const mountEnv = mountEnvOf(file, env);

  checkNesting(config, dir, mountEnv, problems);
  for (const [name, server] of Object.entries(config.servers)) {
    const at = ["servers", name];
    const dangerous = { ...d.dangerous, ...server.dangerous };
    checkMounts(server, d.mounts ?? [], dangerous, at, dir, mountEnv, problems);
    checkSource(server, at, dir, env, problems);
    checkIdentity(server, d, dangerous, at, problems);
    checkEgress(server, d, dangerous, at, problems);
    checkCredentials(server, at, problems);

    const prefix = server.prefix ?? d.prefix ?? name;
    if (prefix !== false) {
      const other = prefixes.get(prefix);
      if (other !== undefined) {
        problems.push({
          severity: "error",
          path: [...at, "prefix"],
          message: `"${prefix}" is already the prefix of server "${other}"`,
          hint: "give each server its own prefix",
        });
      }
      prefixes.set(prefix, name);
      if (server.prefix === undefined && d.prefix === undefined && (prefix.includes("__") || prefix.endsWith("_"))) {
        problems.push({
          severity: "error",
          path: at,
          message: `the server's name is its prefix, and a prefix must not contain "__" or end with "_" (the separator of prefix and name)`,
          hint: `rename the server, or set servers.${name}.prefix`,
        });
      }
    }
  }
  if (config.build?.caCerts !== undefined && !env.exists(hostPath(dir, config.build.caCerts, env.home))) {
    problems.push({
      severity: "error",
      path: ["build", "caCerts"],
      message: `${config.build.caCerts} does not exist`,
      hint: "point it at a PEM bundle, e.g. /etc/ssl/certs/ca-certificates.crt",
    });
  }
  return dedupe(problems);
}

function mountEnvOf(file: string, env: CheckEnv): MountEnv {
  const modules = (env.modules?.(file) ?? [file]).map((m) => env.realpath(m));
  return {
    home: env.home,
    exists: env.exists,
    realpath: env.realpath,
    vars: env.vars ?? {},
    platform: env.platform ?? "linux",
    caseInsensitive: env.caseInsensitive ?? (() => false),
    modules: [...new Set([file, env.realpath(file), ...modules])],
    ...(env.fileSharing ? { fileSharing: env.fileSharing } : {}),
    ...(env.entries ? { entries: env.entries } : {}),
  };
}

type DangerFlags = NonNullable<ParsedServer["dangerous"]>;

function checkSource(server: ParsedServer, at: PropertyKey[], dir: string, env: CheckEnv, problems: Problem[]) {
  const pkg = server.package;
  if (server.template !== undefined && pkg !== undefined && isLocalPackage(pkg)) {
    if (!env.exists(hostPath(dir, pkg, env.home))) {
      problems.push({
        severity: "error",
        path: [...at, "package"],
        message: `${pkg} does not exist`,
        hint: "a local package is a folder or archive path relative to the config file",
      });
    }
  }
  if (server.build !== undefined) {
    const context = hostPath(dir, server.build.context, env.home);
    if (!env.exists(context)) {
      problems.push({ severity: "error", path: [...at, "build", "context"], message: `${server.build.context} does not exist` });
    } else {
      const dockerfile = path.resolve(context, server.build.dockerfile ?? "Dockerfile");
      if (!env.exists(dockerfile)) {
        problems.push({
          severity: "error",
          path: [...at, "build", "dockerfile"],
          message: `${path.relative(dir, dockerfile)} does not exist`,
          hint: "dockerfile is relative to the build context",
        });
      }
    }
  }
  for (const [name, secret] of Object.entries(server.secrets ?? {})) {
    if (server.env?.[name] !== undefined) {
      problems.push({
        severity: "error",
        path: [...at, "env", name],
        message: `${name} is both in env and in secrets`,
        hint: "keep it only in secrets",
      });
    }
    if ("file" in secret && !env.exists(hostPath(dir, secret.file, env.home))) {
      problems.push({
        severity: "warning",
        path: [...at, "secrets", name, "file"],
        message: `${secret.file} does not exist yet; serving will fail until it does`,
      });
    }
  }
}

export const isLocalPackage = (spec: string) =>
  /^(\.{1,2}\/|\/|~\/)/.test(spec) || /\.(tgz|tar\.gz|whl|zip)$/.test(spec);

function checkCredentials(server: ParsedServer, at: PropertyKey[], problems: Problem[]) {
  for (const [name, value] of Object.entries(server.env ?? {})) {
    if (value !== "" && (credentialKeyName(name) || looksLikeCredential(value))) {
      problems.push({
        severity: "warning",
        path: [...at, "env", name],
        message: "looks like a credential written in the config",
        hint: `move it to secrets: { ${name}: { env: "${name}" } }`,
      });
    }
  }
  // a build argument is no secret either: it stays in the image (`docker history` shows each RUN's arguments)
  for (const [name, value] of Object.entries(server.build?.args ?? {})) {
    if (value !== "" && (credentialKeyName(name) || looksLikeCredential(value))) {
      problems.push({
        severity: "warning",
        path: [...at, "build", "args", name],
        message: "looks like a credential written in the config: a build argument stays in the image's history",
        hint: `give it to the server when it runs instead: secrets: { ${name}: { env: "${name}" } }`,
      });
    }
  }
  (server.args ?? []).forEach((arg, i) => {
    if (looksLikeCredential(arg)) {
      problems.push({
        severity: "warning",
        path: [...at, "args", i],
        message: "looks like a credential written in the config",
        hint: "pass it as a secret (an environment variable) instead",
      });
    }
  });
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path.map(String).join(".")}|${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
