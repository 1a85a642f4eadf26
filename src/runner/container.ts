/**
 * The create options of one run's container, pure: the server's hardened options (policy/run.ts) plus a unique
 * name, the runner image's own entrypoint, and /work, a private noexec tmpfs the files and the code are written to.
 */
import { randomBytes } from "node:crypto";
import type { ContainerCreateOptions } from "dockerode";
import type { ResolvedServer } from "../config/resolve.ts";
import { containerName, containerOptions, ULIMITS, type RunContext } from "../policy/run.ts";

export const RUN_LABEL = "mcpbox.run";

export function runContainerOptions(server: ResolvedServer, ctx: RunContext, language: string): ContainerCreateOptions {
  const base = containerOptions({ ...server, command: undefined, args: [] }, ctx, {});
  const { Entrypoint: _entrypoint, Cmd: _cmd, ...rest } = base;
  return {
    ...rest,
    name: `${containerName(ctx.session, server.name)}-${language}-${randomBytes(4).toString("hex")}`,
    Labels: { ...base.Labels, [RUN_LABEL]: language },
    WorkingDir: "/work",
    Cmd: [language], // the launcher pre-starts the interpreter of a python container before the request (run.py)
    HostConfig: {
      ...base.HostConfig,
      // under runsc (Debian's 2022 build) docker-init took the launcher's child and its exit status in about half the
      // runs (measured: no exit trailer). The launcher reaps its child itself, and a run container is killed, never
      // stopped gracefully, so it goes without an init there.
      ...(server.runtime === "gvisor" ? { Init: false, ...gvisorPids(server.limits.pids) } : {}),
      Tmpfs: { ...base.HostConfig?.Tmpfs, "/work": workTmpfs(server) },
    },
  };
}

/**
 * Under runsc the engine's pids limit bounds the sandbox's host threads, not the run's processes: the idle sandbox
 * holds about 45 and each process in it costs about 8 more (measured, ptrace platform). At 64 a pipeline ran it out,
 * and gVisor's Go runtime dies on a failed thread creation (exit 2, output lost). gVisor's own kernel counts the run's
 * processes and threads against RLIMIT_NPROC (the sandbox's uid alone), so nproc carries limits.pids there (fork and
 * clone fail with EAGAIN, as under runc's pids cgroup), and the engine's limit stays as a backstop well above it.
 */
export function gvisorPids(pids: number): { PidsLimit: number; Ulimits: { Name: string; Soft: number; Hard: number }[] } {
  return {
    PidsLimit: GVISOR_SANDBOX_PIDS + GVISOR_PIDS_PER_TASK * pids,
    Ulimits: ULIMITS.map((u) => (u.Name === "nproc" ? { Name: u.Name, Soft: pids, Hard: pids } : { ...u })),
  };
}

/** host threads of an idle runsc sandbox (about 45 measured), with room */
const GVISOR_SANDBOX_PIDS = 128;
/** host threads per process in the sandbox (about 8 measured; a thread costs less) */
const GVISOR_PIDS_PER_TASK = 12;

/** rw, noexec: interpreters read the code, nothing there needs to be executed; owned by the run's user. */
function workTmpfs(server: ResolvedServer): string {
  const [uid, gid] = server.user.split(":");
  const owner = uid && /^\d+$/.test(uid) ? `,uid=${uid},gid=${gid && /^\d+$/.test(gid) ? gid : uid},mode=0700` : ",mode=1777";
  return `rw,noexec,nosuid,nodev,size=${server.limits.tmpfsBytes}${owner}`;
}
