/**
 * Nothing outlives its gateway (SPEC 4.2): containers of dead owners are swept at the next start, a session's
 * containers are removed at shutdown, and a detached reaper removes them within seconds if the gateway is SIGKILLed;
 * the networks and volumes of an allowlisted server's egress go the same ways, after their containers.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import type Docker from "dockerode";
import { removeContainer } from "./_http.ts";
import { LABEL, labelFilter, ownerPidOf } from "../policy/labels.ts";
import { reaperCommand } from "./_self.ts";

/**
 * Removes mcpbox containers whose owner process is gone from this host, then their networks and volumes (an
 * allowlisted server's egress); returns how many containers.
 */
export async function sweepDeadOwners(docker: Docker, host: string = os.hostname()): Promise<number> {
  const managed = labelFilter({ [LABEL.managed]: "true" });
  const deadOwner = (labels: Readonly<Record<string, string>> | undefined) => {
    const pid = ownerPidOf(labels);
    const ownerHost = labels?.[LABEL.ownerHost];
    return pid !== undefined && (ownerHost === undefined || ownerHost === host) && !isAlive(pid);
  };
  // the three lists at once (one round trip of the start instead of three); removals in order: a network goes once
  // the containers on it are gone
  const objects = listNetworksAndVolumes(docker, managed); // never rejects
  const dead = (await docker.listContainers({ all: true, filters: managed })).filter((c) => deadOwner(c.Labels));
  await Promise.all(dead.map((c) => removeQuietly(docker, c.Id)));
  await removeNetworksAndVolumes(docker, await objects, deadOwner);
  return dead.length;
}

/** Removes every container of a session (running or not), then its networks and volumes. */
export async function removeSession(docker: Docker, session: string): Promise<void> {
  const ids = await sessionContainers(docker, session);
  await Promise.all(ids.map((id) => removeQuietly(docker, id)));
  await removeSessionObjects(docker, session);
}

/** The session's networks and volumes (an allowlisted server's egress); call once its containers are gone. */
export async function removeSessionObjects(docker: Docker, session: string): Promise<number> {
  return removeNetworksAndVolumes(docker, await listNetworksAndVolumes(docker, labelFilter({ [LABEL.managed]: "true", [LABEL.session]: session })), () => true);
}

type Labelled = { Labels?: Readonly<Record<string, string>> | null | undefined };
interface ManagedObjects {
  networks: (Labelled & { Id: string })[];
  volumes: (Labelled & { Name: string })[];
}

/** Both lists at once; a list the engine refuses counts as empty (best effort, like the removals). */
async function listNetworksAndVolumes(docker: Docker, filters: string): Promise<ManagedObjects> {
  const [networks, volumes] = await Promise.all([
    docker.listNetworks({ filters }).catch(() => []),
    docker.listVolumes({ filters }).then((r) => r?.Volumes ?? [], () => []),
  ]);
  return { networks, volumes };
}

/** Best effort, like containers: one still in use (or already gone) is left to the next sweep. */
async function removeNetworksAndVolumes(
  docker: Docker,
  listed: ManagedObjects,
  pick: (labels: Readonly<Record<string, string>> | undefined) => boolean,
): Promise<number> {
  const networks = listed.networks.filter((n) => pick(n.Labels ?? undefined));
  const volumes = listed.volumes.filter((v) => pick(v.Labels ?? undefined));
  const removed = await Promise.all([
    ...networks.map((n) => docker.getNetwork(n.Id).remove().then(() => 1, () => 0)),
    ...volumes.map((v) => docker.getVolume(v.Name).remove().then(() => 1, () => 0)),
  ]);
  return removed.reduce<number>((a, b) => a + b, 0);
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
