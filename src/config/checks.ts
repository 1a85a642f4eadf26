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

export interface CheckEnv {
  home: string;
  exists: (p: string) => boolean;
  realpath: (p: string) => string;
}

export const realEnv = (home: string = os.homedir()): CheckEnv => ({
  home,
  exists: (p) => fs.existsSync(p),
  realpath: (p) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return p;
    }
  },
});

type Danger = { kind: "sensitive" | "docker-socket"; what: string };

const SOCKET_NAMES = /(^|\/)(docker|podman|containerd|dockershim)\.sock$/;

/** Why mounting `source` (absolute, symlinks resolved) would expose the host, or undefined. */
export function mountDanger(source: string, home: string): Danger | undefined {
  const p = path.resolve(source);
  if (SOCKET_NAMES.test(p)) return { kind: "docker-socket", what: "a container engine socket" };
  if (p === "/") return { kind: "sensitive", what: "the root filesystem" };
  for (const runDir of ["/var/run", "/run"]) {
    if (p === runDir || isInside(path.join(runDir, "docker.sock"), p)) {
      return { kind: "docker-socket", what: `${runDir}, which holds the Docker socket` };
    }
  }
  if (p === path.resolve(home)) return { kind: "sensitive", what: "your home folder" };
  const sensitive = ["/etc", ...[".ssh", ".aws", ".gnupg", ".kube", ".docker"].map((d) => path.join(home, d))];
  for (const dir of sensitive) {
    if (p === dir || isInside(p, dir)) return { kind: "sensitive", what: tilde(dir, home) };
    if (isInside(dir, p)) return { kind: "sensitive", what: `a folder that contains ${tilde(dir, home)}` };
  }
  return undefined;
}

const isInside = (child: string, parent: string) => {
  const rel = path.relative(parent, child);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
};

const tilde = (p: string, home: string) => (p.startsWith(home + path.sep) ? `~/${path.relative(home, p)}` : p);

export function isRootUser(user: string | number): boolean {
  const uid = String(user).split(":")[0]!.trim();
  return uid === "0" || uid === "root";
}

export function checkConfig(config: ParsedConfig, file: string, env: CheckEnv = realEnv()): Problem[] {
  const dir = path.dirname(file);
  const problems: Problem[] = [];
  const d = config.defaults ?? {};
  const prefixes = new Map<string, string>();

  for (const [name, server] of Object.entries(config.servers)) {
    const at = ["servers", name];
    const dangerous = { ...d.dangerous, ...server.dangerous };
    checkMounts(server, d.mounts ?? [], dangerous, at, dir, env, problems);
    checkSource(server, at, dir, env, problems);
    checkIdentity(server, d, dangerous, at, problems);
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

type DangerFlags = NonNullable<ParsedServer["dangerous"]>;

function checkMounts(
  server: ParsedServer,
  defaultMounts: NonNullable<ParsedServer["mounts"]>,
  dangerous: DangerFlags,
  at: PropertyKey[],
  dir: string,
  env: CheckEnv,
  problems: Problem[],
) {
  const all = [
    ...defaultMounts.map((m, i) => ({ m, where: ["defaults", "mounts", i] as PropertyKey[] })),
    ...(server.mounts ?? []).map((m, i) => ({ m, where: [...at, "mounts", i] as PropertyKey[] })),
  ];
  const targets = new Map<string, string>();
  for (const { m, where } of all) {
    const source = hostPath(dir, m.source, env.home);
    if (!env.exists(source)) {
      problems.push({
        severity: "error",
        path: [...where, "source"],
        message: `${m.source} does not exist (resolved to ${source})`,
        hint: "create it, or fix the path: relative paths start at the config file's folder",
      });
    }
    const danger = mountDanger(env.realpath(source), env.home);
    if (danger?.kind === "docker-socket" && !dangerous.allowDockerSocket) {
      problems.push({
        severity: "error",
        path: [...where, "source"],
        message: `mounts ${danger.what}: a container with it controls the host`,
        hint: "remove the mount, or set dangerous.allowDockerSocket: true if you really mean it",
      });
    } else if (danger?.kind === "sensitive" && !dangerous.allowSensitiveMounts) {
      problems.push({
        severity: "error",
        path: [...where, "source"],
        message: `mounts ${danger.what}, which is refused`,
        hint: "mount only the folder the server needs, or set dangerous.allowSensitiveMounts: true",
      });
    }
    const target = path.posix.normalize(m.target);
    if (targets.has(target)) {
      problems.push({
        severity: "error",
        path: [...where, "target"],
        message: `${target} is mounted twice`,
        hint: "give each mount its own target",
      });
    }
    targets.set(target, m.source);
    if (target === "/" || target === "/tmp") {
      problems.push({ severity: "error", path: [...where, "target"], message: `cannot mount over ${target}` });
    }
  }
}

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

function checkIdentity(
  server: ParsedServer,
  d: NonNullable<ParsedConfig["defaults"]>,
  dangerous: DangerFlags,
  at: PropertyKey[],
  problems: Problem[],
) {
  const user = server.user ?? d.user;
  if (user !== undefined && isRootUser(user) && !dangerous.allowRoot) {
    problems.push({
      severity: "error",
      path: server.user !== undefined ? [...at, "user"] : ["defaults", "user"],
      message: `runs as root (${user}), which is refused`,
      hint: 'remove it to run as 1000:1000, or set dangerous.allowRoot: true',
    });
  }
  const network = server.network ?? d.network;
  if (network === "host" && !dangerous.allowHostNetwork) {
    problems.push({
      severity: "error",
      path: [...at, "network"],
      message: 'network "host" shares the host\'s network stack, which is refused',
      hint: 'use "bridge", or set dangerous.allowHostNetwork: true',
    });
  }
  if ((server.readOnlyRoot ?? d.readOnlyRoot) === false) {
    problems.push({ severity: "warning", path: [...at, "readOnlyRoot"], message: "the root filesystem is writable" });
  }
  for (const [flag, on] of Object.entries(dangerous)) {
    if (on) {
      problems.push({
        severity: "warning",
        path: [...at, "dangerous", flag],
        message: "isolation is weakened by this opt-in",
      });
    }
  }
}

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
