/**
 * Servers as hardened containers (SPEC 4.2, 4.6): the engine is checked, containers of dead gateways are swept, a
 * reaper watches this process, images are resolved (built, or pulled for `image:` servers, when missing) before the
 * startup clock runs, and every container carries the session's labels so nothing outlives the gateway.
 *
 * This file is what `serve` needs before its client is answered: the engine's ping and the catalog-cache look-ups
 * (issue 15: start cost). The rest, from the sweep and the reaper to the containers, is docker-launch.ts, loaded by
 * the first start; every container, network and egress of the session waits for the sweep and the reaper there.
 */
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { imageIdOf, pingEngineSocket } from "../docker/engine-socket.ts";
import type { CatalogCache } from "./catalog-cache.ts";
import type { DockerLauncherOptions, LaunchSide } from "./docker-launch.ts";
import type { Launcher } from "./launcher.ts";

export type { DockerLauncherOptions } from "./docker-launch.ts";

export async function dockerLauncher(o: DockerLauncherOptions): Promise<Launcher> {
  await (o.engineUp ?? pingEngineSocket(async () => (await dockerode()).pingEngine()));
  const remembered = o.catalogCache ? rememberedIn(o.catalogCache, o.config, o.lookUpEarly ?? []) : {};
  let side: Promise<LaunchSide> | undefined;
  const launchSide = () => (side ??= Promise.all([import("./docker-launch.ts"), dockerode()]).then(([m, e]) => m.launchSide(e.engine(), o)));
  return {
    async prepare(server) {
      await (await launchSide()).prepare?.(server);
    },
    async launch(server) {
      return (await launchSide()).launch(server);
    },
    ...remembered,
    async close() {
      await (await launchSide()).close();
    },
  };
}

/**
 * The catalog cache keyed by the id of the image a server runs: read under the id its reference has now (a template
 * server's content tag, an `image:` reference), without building or pulling (a missing image: nothing to show);
 * written under the id of the image the launched container runs. When that is not the image an entry was shown from
 * (the reference moved between the two), nothing is written this run: what the server was taken for (its era) came
 * from the other image, and the next start reads nothing for the new one and probes it.
 */
function rememberedIn(cache: CatalogCache, config: ResolvedConfig, early: readonly ResolvedServer[]): Pick<Launcher, "remembered" | "remember"> {
  const shownFrom = new Map<string, string>();
  const imageId = (ref: string) => imageIdOf(ref, dockerodeImageId).catch(() => undefined);
  const lookUp = async (server: ResolvedServer, idOf: (ref: string) => Promise<string | undefined> = imageId) => {
    if (server.source.kind === "builtin") return undefined;
    // an `image:` server runs its reference; a template server its content tag (images/, loaded only for one)
    const ref = server.source.kind === "image" ? server.source.image : await templateRef(config, server);
    const id = ref && (await idOf(ref));
    return id ? { id, entry: cache.read(server, id) } : undefined;
  };
  // taken by the server's first look-up; a later one looks again. The early ones ask the engine once per reference
  // (servers of one image: one inspect, not one each), all at the same moment
  const started = new Map<string, ReturnType<typeof lookUp>>();
  const ids = new Map<string, Promise<string | undefined>>();
  const idOnce = (ref: string) => {
    let p = ids.get(ref);
    if (!p) ids.set(ref, (p = imageId(ref)));
    return p;
  };
  for (const s of early) {
    const p = lookUp(s, idOnce);
    p.catch(() => {}); // its first look-up is told
    started.set(s.name, p);
  }
  return {
    async remembered(server) {
      const pending = started.get(server.name);
      started.delete(server.name);
      const found = await (pending ?? lookUp(server));
      if (found?.entry) shownFrom.set(server.name, found.id);
      return found?.entry;
    },
    async remember(server, launched, entry) {
      if (server.source.kind === "builtin") return;
      const docker = (await dockerode()).engine();
      const id = ((await docker.getContainer(launched.id).inspect().catch(() => undefined)) as { Image?: unknown } | undefined)?.Image;
      if (typeof id !== "string" || id === "") return;
      const shown = shownFrom.get(server.name);
      if (shown !== undefined && shown !== id) return;
      cache.write(server, id, entry);
    },
  };
}

/** A template server's content tag (what its build is tagged), without building anything; undefined when it cannot be had. */
async function templateRef(config: ResolvedConfig, server: ResolvedServer): Promise<string | undefined> {
  const [{ imageRefFor }, { engine }] = await Promise.all([import("../images/ensure.ts"), dockerode()]);
  return imageRefFor(engine(), config, server).catch(() => undefined);
}

/** dockerode (engine.ts), loaded by the first start, or by a look-up the engine's socket cannot answer. */
const dockerode = () => import("../docker/engine.ts");

async function dockerodeImageId(ref: string): Promise<string | undefined> {
  const { inspectImage } = await import("../docker/image-build.ts");
  return (await inspectImage((await dockerode()).engine(), ref))?.id;
}
