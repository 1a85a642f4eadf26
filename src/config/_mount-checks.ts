/**
 * The checks of one server's mounts (SPEC 2.3): missing sources, the denylist, writable mounts of code the host runs,
 * targets. Each refusal's hint names the full dotted path of the key that lifts it.
 */
import path from "node:path";
import type { ParsedServer } from "./schema.ts";
import type { Problem } from "./problems.ts";
import { hostPath } from "./resolve.ts";
import { denyReason, isInsideResolved, pathsOf, type DenyEnv } from "./_denylist.ts";
import { writableDanger, type WritableEnv } from "./_writable.ts";

export type MountEnv = DenyEnv &
  WritableEnv & {
    modules: readonly string[];
    /** why the engine found cannot mount a source (docker/file-sharing.ts for Docker Desktop), or undefined */
    fileSharing?: (source: string) => string | undefined;
  };
type DangerFlags = NonNullable<ParsedServer["dangerous"]>;
type Located = { m: NonNullable<ParsedServer["mounts"]>[number]; where: PropertyKey[] };

export function checkMounts(
  server: ParsedServer,
  defaultMounts: NonNullable<ParsedServer["mounts"]>,
  dangerous: DangerFlags,
  at: PropertyKey[],
  dir: string,
  env: MountEnv,
  problems: Problem[],
) {
  const all: Located[] = [
    ...defaultMounts.map((m, i) => ({ m, where: ["defaults", "mounts", i] })),
    ...(server.mounts ?? []).map((m, i) => ({ m, where: [...at, "mounts", i] })),
  ];
  const targets = new Map<string, string>();
  for (const { m, where } of all) {
    // a mount in defaults is lifted under defaults; a server's own under that server
    const optIn = (flag: keyof DangerFlags) => `${where[0] === "defaults" ? "defaults" : at.join(".")}.dangerous.${flag}`;
    const source = sourceOf(dir, m.source, env);
    const at_ = [...where, "source"];
    const exists = env.exists(source);
    if (!exists) {
      problems.push({
        severity: "error",
        path: at_,
        message: `${m.source} does not exist (resolved to ${source})`,
        hint: "create it, or fix the path: relative paths start at the config file's folder",
      });
    }
    for (const [key, value] of [["source", m.source], ["target", m.target]] as const) {
      // a Windows source starts with its drive (C:\Users\me\reports), which Docker's bind syntax reads as one
      const rest = key === "source" && env.platform === "win32" ? value.replace(/^[A-Za-z]:(?=[\\/])/, "") : value;
      if (rest.includes(":")) {
        problems.push({
          severity: "error",
          path: [...where, key],
          message: `${value} contains ":", which Docker's bind syntax reads as a separator`,
          hint: "rename the folder, or mount a folder above it",
        });
      }
    }
    const real = env.realpath(source);
    const danger = denyReason(real, env);
    if (danger?.kind === "docker-socket" && !dangerous.allowDockerSocket) {
      problems.push({
        severity: "error",
        path: at_,
        message: `mounts ${danger.what}: a container with it controls the host`,
        hint: `remove the mount, or set ${optIn("allowDockerSocket")}: true if you really mean it`,
      });
    } else if (danger?.kind === "sensitive" && !dangerous.allowSensitiveMounts) {
      problems.push({
        severity: "error",
        path: at_,
        message: `mounts ${danger.what}, which is refused`,
        hint: `mount only the folder the server needs, or set ${optIn("allowSensitiveMounts")}: true`,
      });
    }
    // a warning: the engine at serve time may be another one than validate found
    const sharing = exists ? env.fileSharing?.(real) : undefined;
    if (sharing) {
      problems.push({ severity: "warning", path: at_, message: sharing, hint: "add the folder in Docker Desktop → Settings → Resources → File sharing, or move it under a shared folder" });
    }
    const writable = m.readOnly === false ? writableDanger(real, env.modules, env) : undefined;
    if (writable !== undefined) {
      const message = `is writable and ${writable}: the server could change what runs on the host`;
      problems.push(
        dangerous.allowWritableConfig
          ? { severity: "warning", path: [...where, "readOnly"], message }
          : {
              severity: "error",
              path: [...where, "readOnly"],
              message,
              hint: `make it read-only (remove readOnly: false), mount a folder that holds only data, or set ${optIn("allowWritableConfig")}: true`,
            },
      );
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

/**
 * No mount may lie inside a folder that a server may write (its own or another server's): that server could replace
 * the inner folder, or a folder on its way, with a link to anything, and the next start would mount the link's
 * target (`~/.ssh`, the config's folder). Checked across all servers, on resolved paths.
 */
export function checkNesting(config: { defaults?: { mounts?: ParsedServer["mounts"] }; servers: Record<string, ParsedServer> }, dir: string, env: MountEnv, problems: Problem[]) {
  const all = [
    ...(config.defaults?.mounts ?? []).map((m, i) => ({ m, where: ["defaults", "mounts", i] as PropertyKey[], owner: "every server" })),
    ...Object.entries(config.servers).flatMap(([name, s]) =>
      (s.mounts ?? []).map((m, i) => ({ m, where: ["servers", name, "mounts", i] as PropertyKey[], owner: `server ${name}` })),
    ),
  ].map((x) => ({ ...x, real: env.realpath(sourceOf(dir, x.m.source, env)) }));
  for (const inner of all) {
    const outer = all.find((w) => w.m.readOnly === false && w !== inner && isStrictlyInside(inner.real, w.real));
    if (!outer) continue;
    problems.push({
      severity: "error",
      path: [...inner.where, "source"],
      message: `${inner.m.source} lies inside ${outer.m.source}, which ${outer.owner} may write: it could replace it with a link to any folder of yours before the next start`,
      hint: `mount ${outer.m.source} read-only, or mount folders that do not nest (${outer.where.map(String).join(".")})`,
    });
  }
}

/** resolve.ts's hostPath with the path rules of the OS the checks are for (the same as the host's outside tests). */
function sourceOf(dir: string, source: string, env: MountEnv): string {
  if (env.platform === undefined) return hostPath(dir, source, env.home);
  const p = pathsOf(env.platform);
  if (source === "~") return env.home;
  if (source.startsWith("~/")) return p.join(env.home, source.slice(2));
  return p.resolve(dir, source);
}

/** Both are resolved (realpath, or path.resolve when it does not exist): the prefix test, not path.relative (issue 15). */
function isStrictlyInside(child: string, parent: string): boolean {
  return isInsideResolved(child, parent, path);
}
