/**
 * denyReason and writableDanger skip their walks over the denied and guarded paths for a source that is none of
 * them, holds none and is inside none (nearSets, POSIX): the answers must be the walk's for every path, on every OS's
 * rules. The walks are written here as they were before the sets, and asked of many paths near each entry.
 */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { deniedPaths, denyReason, isInsideResolved, nearSets, pathsOf, someAncestorIn, type Danger, type DenyEnv } from "./_denylist.ts";
import { guardedPaths, writableDanger, type WritableEnv } from "./_writable.ts";

function walkDeny(source: string, env: DenyEnv): Danger | undefined {
  const paths = pathsOf(env.platform);
  const ci = env.caseInsensitive(source);
  const fold = (p: string) => (ci ? paths.resolve(p).toLowerCase() : paths.resolve(p));
  const p = fold(source);
  if (/(^|[\\/])(docker|podman|containerd|dockershim)\.sock$/i.test(p)) return { kind: "docker-socket", what: "a container engine socket" };
  if (env.platform === "win32") return denyReason(source, env); // WSL rules first: not what this test is about
  if (paths.parse(p).root === p) return { kind: "sensitive", what: p === "/" ? "the root filesystem" : `the whole drive ${paths.resolve(source)}` };
  if (p === fold(env.home) || p === fold(env.realpath(env.home))) return { kind: "sensitive", what: "your home folder" };
  const entries = deniedPaths(env).map((e) => ({ ...e, folded: fold(e.path) }));
  for (const kind of ["docker-socket", "sensitive"] as const) {
    for (const e of entries.filter((x) => x.kind === kind)) {
      const d = e.folded;
      if (p === d || isInsideResolved(p, d, paths)) return { kind, what: e.what };
      if (isInsideResolved(d, p, paths)) return { kind, what: `a folder that contains ${e.what.split(",")[0]}${kind === "docker-socket" ? " (a container engine socket)" : ""}` };
    }
  }
  return undefined;
}

function walkWritable(source: string, modules: readonly string[], env: WritableEnv): string | undefined {
  const paths = pathsOf(env.platform);
  const ci = env.caseInsensitive(source);
  const fold = (p: string) => (ci ? paths.resolve(p).toLowerCase() : paths.resolve(p));
  const p = fold(source);
  const guarded = guardedPaths(modules, env).map((g) => ({ ...g, q: fold(g.path) }));
  const same = guarded.find((g) => g.q === p);
  if (same) return `is ${same.what}`;
  const held = guarded.find((g) => isInsideResolved(g.q, p, paths));
  if (held) return `holds ${held.what}`;
  const around = guarded.find((g) => g.rule === "area" && isInsideResolved(p, g.q, paths));
  if (around) return `is inside ${around.what}`;
  return writableDanger(source, modules, env); // the markers and .git: after the walks, unchanged
}

/** Each path, every folder above it, children, and names that share a prefix with a part of it. */
function near(paths: readonly string[], sep: string): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const parts = p.split(sep);
    for (let i = 1; i <= parts.length; i++) {
      const q = parts.slice(0, i).join(sep) || sep;
      for (const x of [q, `${q}x`, `${q}${sep}x`, `${q}${sep}x${sep}y`, `${q}.d`, q.slice(0, -1), q.toUpperCase()]) out.add(x);
    }
  }
  return [...out].filter((p) => p !== "");
}

const machines: { name: string; platform: NodeJS.Platform; home: string; vars: Record<string, string | undefined>; extra: string[] }[] = [
  { name: "linux", platform: "linux", home: "/home/ada", vars: { XDG_RUNTIME_DIR: "/run/user/1000", DOCKER_HOST: "unix:///opt/engine/sock/docker.sock", MCPBOX_HOME: "/srv/mcpbox" }, extra: ["/", "/home", "/work/p/data", "/tmp/x"] },
  { name: "linux, odd variables", platform: "linux", home: "/root", vars: { XDG_RUNTIME_DIR: "/", MCPBOX_HOME: "/" }, extra: ["/a", "/a/b"] },
  { name: "macOS", platform: "darwin", home: "/Users/ada", vars: {}, extra: ["/Users", "/Volumes/data/x"] },
];

describe("the near sets answer as the walks did", () => {
  it("someAncestorIn and nearSets are isInsideResolved folder by folder", () => {
    const resolved = ["/a/b/c", "/a/bc", "/x", "/"];
    const { paths, near: n } = nearSets(resolved);
    for (const q of ["/a", "/a/b", "/a/b/c", "/a/b/c/d", "/a/bcd", "/ab", "/x/y", "/y", "/a/b/cd"]) {
      expect(n.has(q), q).toBe(resolved.some((r) => r === q || isInsideResolved(r, q, path.posix)));
      expect(someAncestorIn(q, paths), q).toBe(resolved.some((r) => isInsideResolved(q, r, path.posix)));
    }
  });

  for (const m of machines) {
    for (const ci of [false, true]) {
      it(`denyReason and writableDanger on ${m.name}${ci ? ", case-insensitive" : ""}`, () => {
        const link = (p: string) => (p === `${m.home}/.ssh` ? "/vault/ssh" : p === `${m.home}/.config/Claude` ? "/data/claude" : p);
        const denyEnv: DenyEnv = { home: m.home, vars: m.vars, realpath: link, caseInsensitive: () => ci, platform: m.platform };
        const modules = ["/work/p/sandbox.config.ts", "/work/p/lib/servers.ts"];
        const wenv: WritableEnv = { home: m.home, vars: m.vars, realpath: link, caseInsensitive: () => ci, platform: m.platform, exists: () => false };
        const around = [...deniedPaths(denyEnv).map((e) => e.path), ...guardedPaths(modules, wenv).map((g) => g.path), ...m.extra];
        let refused = 0;
        for (const p of near(around, "/")) {
          const d = denyReason(p, denyEnv);
          expect(d, p).toEqual(walkDeny(p, denyEnv));
          expect(writableDanger(p, modules, wenv), p).toBe(walkWritable(p, modules, wenv));
          if (d) refused++;
        }
        expect(refused).toBeGreaterThan(50);
      });
    }
  }
});
