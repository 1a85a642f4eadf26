/**
 * Nothing outlives its gateway (SPEC 4.2): containers of dead owners are swept at the next start, a session's
 * containers are removed at shutdown, and a detached reaper removes them within seconds if the gateway is SIGKILLed.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import type Docker from "dockerode";
import { removeContainer } from "./_http.ts";
import { LABEL, labelFilter, ownerPidOf } from "./labels.ts";
import { reaperCommand } from "./_self.ts";

/** Removes mcpbox containers whose owner process is gone from this host; returns how many. */
export async function sweepDeadOwners(docker: Docker, host: string = os.hostname()): Promise<number> {
  const list = await docker.listContainers({ all: true, filters: labelFilter({ [LABEL.managed]: "true" }) });
  const dead = list.filter((c) => {
    const pid = ownerPidOf(c.Labels);
    const ownerHost = c.Labels?.[LABEL.ownerHost];
    return pid !== undefined && (ownerHost === undefined || ownerHost === host) && !isAlive(pid);
  });
  await Promise.all(dead.map((c) => removeQuietly(docker, c.Id)));
  return dead.length;
}

/** Removes every container of a session (running or not). */
export async function removeSession(docker: Docker, session: string): Promise<void> {
  const ids = await sessionContainers(docker, session);
  await Promise.all(ids.map((id) => removeQuietly(docker, id)));
}

export async function sessionContainers(docker: Docker, session: string): Promise<string[]> {
  const filters = labelFilter({ [LABEL.managed]: "true", [LABEL.session]: session });
  return (await docker.listContainers({ all: true, filters })).map((c) => c.Id);
}

/** True while a process with this pid exists on this host (EPERM: it exists, owned by someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Starts a detached watcher that removes the session's containers once ownerPid dies, then exits (its pid is
 * returned). A closed stdin is not enough: some servers keep running while a request of theirs is pending.
 */
export function spawnReaper(session: string, ownerPid: number): number | undefined {
  const [command, ...args] = reaperCommand(session, ownerPid);
  const child = spawn(command!, args, { detached: true, stdio: "ignore", env: process.env });
  child.on("error", () => {}); // no reaper: the next start still sweeps dead owners
  child.unref();
  return child.pid;
}

/** Best effort: a container that cannot be removed now is swept at the next start. */
export async function removeQuietly(docker: Docker, id: string): Promise<void> {
  await removeContainer(docker, id).catch(() => {});
}
