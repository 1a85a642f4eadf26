/**
 * A VOLUME an image declares becomes an anonymous volume that the engine makes on the host's disk: writable past the
 * read-only root, outside the memory limit and bounded by nothing, so a hostile image's server could fill the host's
 * disk at GB/s for as long as the session lasts. Each such path gets a tmpfs instead, with the options of the
 * container's /tmp (its size, noexec, nosuid, nodev: the memory cgroup counts its pages too) and owned by the
 * container's user, unless a mount the config names or a tmpfs already covers it. What the image ships at that path
 * is not copied in (an anonymous volume would hold a copy): it starts empty, as the data folders images declare do.
 */
import path from "node:path";
import type Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";

const FALLBACK_TMPFS = "rw,noexec,nosuid,nodev,size=67108864";

/** Pure: the create options with a tmpfs at each of `volumes` that nothing else mounts. */
export function boundImageVolumes(options: ContainerCreateOptions, volumes: readonly string[]): ContainerCreateOptions {
  const host = options.HostConfig ?? {};
  const clean = (p: string) => path.posix.normalize(p).replace(/(.)\/+$/, "$1");
  const tmpfs = { ...host.Tmpfs };
  const taken = new Set([
    ...Object.keys(tmpfs).map(clean),
    ...(host.Binds ?? []).map((b) => clean(bindTarget(b))),
    ...(host.Mounts ?? []).map((m) => clean(m.Target)),
  ]);
  const added = volumes.map(clean).filter((v) => v.startsWith("/") && !taken.has(v));
  if (added.length === 0) return options;
  // the container's user owns it, as it owns a volume the image made its own (Docker gives a tmpfs root and the mode
  // of the image's folder, ignoring a mode option; Podman reads uid/gid of the user as its own `U`, engine-kind.ts)
  const [uid, gid = uid] = (options.User ?? "").split(":");
  const owner = uid && /^\d+$/.test(uid) && gid && /^\d+$/.test(gid) ? `,uid=${uid},gid=${gid}` : ",mode=1777";
  const opts = `${(tmpfs["/tmp"] ?? FALLBACK_TMPFS).split(",").filter((o) => !/^(uid|gid|mode)=/.test(o)).join(",")}${owner}`;
  for (const v of added) tmpfs[v] = opts;
  return { ...options, HostConfig: { ...host, Tmpfs: tmpfs } };
}

/**
 * The paths the image declares as VOLUME; none when the engine cannot say (the create then reports a missing image).
 * Creates of one image at the same moment (a start of several servers of it) share one inspect, while it is in flight
 * only: a later create asks again, so an image rebuilt during the session is read afresh (issue 15: start cost).
 */
export function imageVolumes(docker: Docker, image: string): Promise<string[]> {
  let pending = inFlight.get(docker);
  if (!pending) inFlight.set(docker, (pending = new Map()));
  let p = pending.get(image);
  if (!p) {
    const mine = pending;
    p = docker
      .getImage(image)
      .inspect()
      .then(
        (info) => Object.keys(info?.Config?.Volumes ?? {}),
        () => [],
      )
      .finally(() => mine.delete(image));
    pending.set(image, p);
  }
  return p.then((v) => [...v]); // each caller its own copy
}
const inFlight = new WeakMap<Docker, Map<string, Promise<string[]>>>();

/** `source:target[:mode]` (a Windows source holds a drive colon): the target is the part before the mode. */
function bindTarget(bind: string): string {
  const parts = bind.split(":");
  const last = parts[parts.length - 1]!;
  return parts.length >= 3 && !last.startsWith("/") ? parts[parts.length - 2]! : last;
}
