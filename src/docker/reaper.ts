/**
 * The body of the detached reaper process: wait until the gateway that owns a session is gone (cheap: no engine
 * client is loaded meanwhile), then remove the session's containers (then its networks and volumes) and exit once
 * none has shown up for a while.
 */
import type Docker from "dockerode";
import { isAlive, removeQuietly, removeSessionObjects, sessionContainers } from "./cleanup.ts";

export interface ReaperOptions {
  pollMs?: number;
  /** after the owner is gone: exit when the session has had no containers for this long */
  idleMs?: number;
}

/** Resolves once ownerPid has exited. */
export async function ownerExit(ownerPid: number, pollMs = 500): Promise<void> {
  // our parent is the owner when the gateway spawned us: a new parent means it died, even if its pid was reused
  const watchParent = process.ppid === ownerPid;
  const ownerGone = () => (watchParent && process.ppid !== ownerPid) || !isAlive(ownerPid);
  while (!ownerGone()) await sleep(pollMs);
}

/** Removes the session's containers until none has appeared for idleMs; returns how many it removed. */
export async function removeSessionUntilIdle(docker: Docker, session: string, o: ReaperOptions = {}): Promise<number> {
  const pollMs = o.pollMs ?? 500;
  const idleMs = o.idleMs ?? 5000;
  let removed = 0;
  let idleSince = Date.now();
  while (Date.now() - idleSince < idleMs) {
    const ids = await sessionContainers(docker, session).catch(() => []);
    if (ids.length > 0) {
      await Promise.all(ids.map((id) => removeQuietly(docker, id)));
      removed += ids.length;
      idleSince = Date.now();
    }
    // an egress network and volume: once their containers are gone (the engine refuses an attached network)
    if ((await removeSessionObjects(docker, session).catch(() => 0)) > 0) idleSince = Date.now();
    await sleep(pollMs);
  }
  return removed;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
