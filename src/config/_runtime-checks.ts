/**
 * Which engine runtimes a config needs (SPEC 2.2 `runtime`), and what to say when the engine does not offer one.
 * Pure: the engine's list of runtimes comes from src/docker/runtimes.ts; serve, tools and doctor share these words.
 */
import type { ResolvedConfig, ResolvedServer, RuntimeKind } from "./resolve.ts";

/** One server that asks the engine for a runtime by name. */
export interface RuntimeNeed {
  readonly server: string;
  readonly runtime: RuntimeKind;
  /** the engine's name of it, e.g. "runsc" */
  readonly engineName: string;
}

/** The servers that name an engine runtime (runtime "runc" with no engine.runtimes.runc asks for none). */
export function runtimeNeeds(config: Pick<ResolvedConfig, "servers">): RuntimeNeed[] {
  return config.servers.flatMap((s) =>
    s.engineRuntime === undefined ? [] : [{ server: s.name, runtime: s.runtime, engineName: s.engineRuntime }],
  );
}

/** The needs whose runtime the engine does not offer; none when the engine did not say what it offers. */
export function missingRuntimes(needs: readonly RuntimeNeed[], offered: readonly string[] | undefined): RuntimeNeed[] {
  if (offered === undefined) return [];
  return needs.filter((n) => !offered.includes(n.engineName));
}

/** The registration that works on a machine with no KVM (ENVIRONMENT "Other engines"). */
export const RUNSC_DAEMON_JSON = '{"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace", "--network=none"]}}}';

export interface RuntimeProblem {
  readonly message: string;
  readonly hint: string;
}

/**
 * Why `server` cannot run on this engine, and how to fix it: install and register runsc (Docker: daemon.json, then
 * SIGHUP or a restart; Podman: containers.conf), or point engine.runtimes at the name the engine lists.
 */
export function missingRuntimeProblem(
  server: Pick<ResolvedServer, "name" | "runtime" | "engineRuntime">,
  offered: readonly string[] | undefined,
  engineName = "Docker",
): RuntimeProblem {
  const name = server.engineRuntime ?? "";
  const list = offered && offered.length > 0 ? ` (it offers: ${offered.join(", ")})` : "";
  const message = `server ${server.name} needs runtime "${server.runtime}" (the engine's "${name}"), which the ${engineName} engine does not offer${list}`;
  const key = `engine.runtimes.${server.runtime}`;
  const fallback = `or set servers.${server.name}.runtime (or defaults.runtime) to ${server.runtime === "gvisor" ? '"runc"' : "what the engine offers"}`;
  if (server.runtime === "gvisor") {
    const register = name === "runsc"
      ? `install gVisor (sudo apt-get install -y runsc) and register it with the engine: Docker: merge ${RUNSC_DAEMON_JSON} into /etc/docker/daemon.json, then reload dockerd (sudo kill -HUP $(pidof dockerd), or sudo systemctl restart docker); Podman: add runsc = ["/usr/bin/runsc"] under [engine.runtimes] in containers.conf`
      : `register gVisor's runsc with the engine under the name "${name}", or set ${key} to the name \`docker info\` lists for it (default "runsc")`;
    return { message, hint: `${register}; check with \`docker info --format '{{json .Runtimes}}'\`; ${fallback}` };
  }
  return { message, hint: `set ${key} to a runtime \`docker info\` lists, or remove it to use the engine's default; ${fallback}` };
}
