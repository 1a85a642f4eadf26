/**
 * Doctor's runtime check (SPEC 1 "runtimes offered", 2.2 `runtime`): which runtimes the engine offers, which servers
 * need one it lacks, and gVisor servers that expect a network runsc was registered without. Pure: facts in, result out.
 */
import { missingRuntimeProblem, missingRuntimes, type RuntimeNeed } from "../config/_runtime-checks.ts";
import type { CheckResult } from "./checks.ts";

export const RUNTIME_CHECK = "runtimes";

export interface RuntimeCheckFacts {
  engine: "Docker" | "Podman";
  /** undefined when the engine did not list them, or could not be asked */
  offered: readonly string[] | undefined;
  defaultRuntime: string | undefined;
  args: Readonly<Record<string, readonly string[]>>;
  needs: readonly RuntimeNeed[];
  /** servers under runtime "gvisor" whose network is not "none" (bridge, a named network, an allowlist) */
  networked: readonly { server: string; engineRuntime: string }[];
  /** why the engine could not be asked */
  error?: string;
}

export function runtimesCheck(f: RuntimeCheckFacts): CheckResult {
  const name = RUNTIME_CHECK;
  const missing = missingRuntimes(f.needs, f.offered);
  const data = {
    offered: f.offered ?? null,
    default: f.defaultRuntime ?? null,
    needed: f.needs.map((n) => ({ server: n.server, runtime: n.runtime, engineRuntime: n.engineName })),
    missing: missing.map((n) => ({ server: n.server, runtime: n.runtime, engineRuntime: n.engineName })),
  };
  if (f.offered === undefined) {
    const why = f.error ? `: ${f.error}` : "";
    if (f.needs.length === 0) return { name, status: "ok", message: `the engine did not list its runtimes${why}; no server asks for one`, data };
    return {
      name,
      status: "warn",
      message: `the engine did not list its runtimes${why}; ${needList(f.needs)} cannot be checked before they start`,
      fix: "check `docker info --format '{{json .Runtimes}}'` on the engine",
      data,
    };
  }
  const listed = `offered: ${f.offered.join(", ") || "none"}${f.defaultRuntime ? ` (default ${f.defaultRuntime})` : ""}`;
  // Podman's /info names every runtime its configuration knows, installed or not
  const podman = f.engine === "Podman" ? " (Podman lists the runtimes its configuration names, installed or not)" : "";
  if (missing.length > 0) {
    const first = missing[0]!;
    const p = missingRuntimeProblem({ name: first.server, runtime: first.runtime, engineRuntime: first.engineName }, f.offered, f.engine);
    return { name, status: "fail", message: `${listed}; missing: ${needList(missing)}`, fix: p.hint, data };
  }
  const closed = f.networked.filter((n) => (f.args[n.engineRuntime] ?? []).includes("--network=none"));
  if (closed.length > 0) {
    const who = closed.map((n) => n.server);
    return {
      name,
      status: "warn",
      message: `${listed}; ${who.join(", ")} ${who.length === 1 ? "runs" : "run"} under ${closed[0]!.engineRuntime}, registered with --network=none: no network at all despite the network setting`,
      fix: `register runsc a second time without --network=none (e.g. as "runsc-net") and set engine.runtimes.gvisor to it, or keep those servers on runtime "runc"`,
      data,
    };
  }
  const users = f.needs.length > 0 ? `; ${needList(f.needs)}: present` : "";
  return { name, status: "ok", message: `${listed}${users}${podman}`, data };
}

/** "files and code need gvisor (runsc)", grouped by runtime. */
function needList(needs: readonly RuntimeNeed[]): string {
  const groups = new Map<string, string[]>();
  for (const n of needs) {
    const key = `${n.runtime} (${n.engineName})`;
    groups.set(key, [...(groups.get(key) ?? []), n.server]);
  }
  return [...groups].map(([rt, servers]) => `${servers.join(", ")} need${servers.length === 1 ? "s" : ""} ${rt}`).join("; ");
}
