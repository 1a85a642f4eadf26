/**
 * Engine calls for one-shot containers (the code runner): create, attach stdio, register wait, start; then kill,
 * read the exit state (OOM flag included) and remove. No AutoRemove: it loses the OOM flag (ENVIRONMENT).
 */
import type { ContainerCreateOptions } from "dockerode";
import type Docker from "dockerode";
import type { Duplex } from "node:stream";
import { registerWait } from "./_attach.ts";
import { createContainer } from "./create.ts";
import { createOptionsForEngine } from "./engine-kind.ts";
import { boundImageVolumes, imageVolumes } from "./image-volumes.ts";
import { mountsDeniedError } from "./file-sharing.ts";
import { LABEL } from "../policy/labels.ts";
import { statusOf } from "./images.ts";

export interface ExitState {
  readonly exitCode: number;
  readonly oomKilled: boolean;
}

export interface OneShot {
  readonly id: string;
  /** the hijacked attach stream: write the container's stdin, read its multiplexed stdout and stderr */
  readonly stdio: Duplex;
  /** resolves with the exit status once the container stops (never rejects) */
  readonly exited: Promise<number>;
  /** SIGKILL; ignores a container that has already stopped */
  kill(): Promise<void>;
  /**
   * Exit code and OOM flag of the stopped container. `killedByUs`: whether mcpbox sent the SIGKILL (a timeout, a
   * cancellation); when it did not, a 137 whose flag is false is checked against the engine's own oom event for it.
   */
  state(options?: { killedByUs?: boolean }): Promise<ExitState>;
  /** removes it (forced); ignores one that is gone already */
  remove(): Promise<void>;
}

/**
 * Creates and starts a container with stdin open; it is removed again if any step fails. A wait on the next exit is
 * registered before start (the default "not-running" answers at once for a created container). kill() also settles
 * `exited` from an inspect, in case the container stopped without the wait seeing it. The attach is dockerode's:
 * the JSON body Podman hands to stdin is harmless, as the launcher skips everything before its marker line.
 */
export async function startOneShot(docker: Docker, options: ContainerCreateOptions): Promise<OneShot> {
  // the image's VOLUMEs become tmpfs mounts (image-volumes.ts), as for server containers: the runner image is built
  // FROM build.baseImages, and one that declares a VOLUME gave every run an unbounded volume on the host's disk
  const bounded = boundImageVolumes(options, await imageVolumes(docker, String(options.Image)));
  const container = await createContainer(docker, await createOptionsForEngine(docker, bounded)).catch((e: unknown) => {
    throw mountsDeniedError(e, serverName(options)) ?? e; // Docker Desktop does not share a mount's folder
  });
  let settle!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (settle = resolve));
  const handle = oneShot(docker, container.id, settle, Math.floor(Date.now() / 1000) - 1);
  try {
    const stdio = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as Duplex;
    stdio.on("error", () => {}); // a broken attach surfaces as a missing output end; the exit status still arrives
    const wait = await registerWait(docker, container.id);
    wait.result.then(
      (r) => settle(r.StatusCode ?? -1),
      () => void handle.settleFromState(),
    );
    await container.start();
    return { ...handle, stdio, exited };
  } catch (e) {
    await handle.remove();
    throw mountsDeniedError(e, serverName(options)) ?? e;
  }
}

const serverName = (o: ContainerCreateOptions) => o.Labels?.[LABEL.server] ?? o.name ?? String(o.Image);

function oneShot(docker: Docker, id: string, settle: (code: number) => void, createdAt: number) {
  const container = docker.getContainer(id);
  const settleFromState = async () => {
    const info = await container.inspect().catch(() => undefined);
    if (!info?.State.Running) settle(info?.State.ExitCode ?? -1);
  };
  return {
    id,
    settleFromState,
    async kill() {
      await container.kill().catch((e: unknown) => {
        if (![304, 404, 409].includes(statusOf(e) ?? 0)) throw e;
      });
      setTimeout(() => void settleFromState(), 1000).unref();
    },
    async state(options: { killedByUs?: boolean } = {}): Promise<ExitState> {
      const info = await container.inspect();
      const state = { exitCode: info.State.ExitCode, oomKilled: info.State.OOMKilled === true };
      if (state.oomKilled || state.exitCode !== 137 || options.killedByUs) return state;
      return { ...state, oomKilled: await oomEventOf(docker, id, createdAt) };
    },
    async remove() {
      await container.remove({ force: true, v: true }).catch((e: unknown) => {
        if (![404, 409].includes(statusOf(e) ?? 0)) throw e;
      });
    },
  };
}

/**
 * Whether the engine reported an OOM kill of this container since `since` (seconds), asked a few times over ~0.5 s.
 * The flag in its inspect is set only when the engine learns of the OOM before the exit, and the two come by different
 * paths: under gVisor on a loaded machine a memory bomb was reported as a plain SIGKILL in 1 run of 20 (in passing
 * runs the oom event came 55-340 ms before the exit). Only for a 137 mcpbox did not cause: nothing is asked otherwise.
 */
export async function oomEventOf(docker: Docker, id: string, since: number): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 100));
    // until now, not later: the engine holds the stream open until that time; seconds.nanoseconds, 9 digits
    const now = Date.now();
    const until = `${Math.floor(now / 1000)}.${String(now % 1000).padStart(3, "0")}000000`;
    const found = await pastEvents(docker, { since, until, filters: JSON.stringify({ container: [id], event: ["oom"] }) }).catch(() => []);
    if (found.length > 0) return true;
  }
  return false;
}

/** The engine's events in a closed interval (`until` given: it answers what it kept and ends the stream). */
async function pastEvents(docker: Docker, query: { since: number; until: string; filters: string }): Promise<unknown[]> {
  // dockerode types `until` as a number of seconds; the engine reads seconds.nanoseconds as text
  const stream: NodeJS.ReadableStream = await docker.getEvents(query as unknown as Docker.GetEventsOptions);
  let text = "";
  for await (const chunk of stream) {
    text += chunk.toString();
    if (text.length > 1 << 20) break; // a container's own events: a handful
  }
  return text.split("\n").filter((l) => l.trim() !== "");
}

/** Containers carrying every one of these labels (stopped ones too): what a session left behind. */
export async function containersWithLabels(docker: Docker, labels: Readonly<Record<string, string>>): Promise<string[]> {
  const filters = { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) };
  const list = await docker.listContainers({ all: true, filters });
  return list.map((c) => c.Id);
}
