/**
 * The create options of one run's container, pure: the server's hardened options (policy/run.ts) plus a unique
 * name, the runner image's own entrypoint, and /work, a private noexec tmpfs the files and the code are written to.
 */
import { randomBytes } from "node:crypto";
import type { ContainerCreateOptions } from "dockerode";
import type { ResolvedServer } from "../config/resolve.ts";
import { containerName, containerOptions, type RunContext } from "../policy/run.ts";

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
      ...(server.runtime === "gvisor" ? { Init: false } : {}),
      Tmpfs: { ...base.HostConfig?.Tmpfs, "/work": workTmpfs(server) },
    },
  };
}

/** rw, noexec: interpreters read the code, nothing there needs to be executed; owned by the run's user. */
function workTmpfs(server: ResolvedServer): string {
  const [uid, gid] = server.user.split(":");
  const owner = uid && /^\d+$/.test(uid) ? `,uid=${uid},gid=${gid && /^\d+$/.test(gid) ? gid : uid},mode=0700` : ",mode=1777";
  return `rw,noexec,nosuid,nodev,size=${server.limits.tmpfsBytes}${owner}`;
}
