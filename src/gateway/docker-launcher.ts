/**
 * Servers as hardened containers (SPEC 4.2, 4.6): the engine is checked, containers of dead gateways are swept, a
 * reaper watches this process, images are resolved (built, or pulled for `image:` servers, when missing) before the
 * startup clock runs, and every container carries the session's labels so nothing outlives the gateway.
 *
 * This file is what `serve` needs before its client is answered: the engine's ping and the catalog-cache look-ups
 * (issue 15: start cost). The rest, from the sweep and the reaper to the containers, is docker-launch.ts, loaded by
 * the first start; every container, network and egress of the session waits for the reaper there.
 */
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { imageIdOf, pingEngineSocket } from "../docker/engine-socket.ts";
import { loadCatalogChecks, type CatalogCache } from "./catalog-cache.ts";
import type { DockerLauncherOptions, LaunchSide } from "./docker-launch.ts";
import type { LaunchedServer, Launcher } from "./launcher.ts";

export type { DockerLauncherOptions } from "./docker-launch.ts";

/** how long after the launcher is made the start-up sweep runs when no container has run it yet */
const SWEEP_AFTER_MS = 1000;
/** how long the gateway's code waits for an early server's container to be started once it was made */
const EARLY_START_WAIT_MS = 2000;

export async function dockerLauncher(o: DockerLauncherOptions): Promise<Launcher> {
  await (o.engineUp ?? pingEngineSocket(async () => (await dockerode()).pingEngine()));
  // the session's reaper, once: spawned by the launch side before its first container, or here as soon as a cold
  // start is sure to come, so that its boot (a second start of this program) runs while this one still loads, not
  // beside the engine's container starts on the same cores
  let reaperSpawned = false;
  const spawnReaper = (cleanup: typeof import("../docker/cleanup.ts")) => {
    if (reaperSpawned) return;
    reaperSpawned = true;
    cleanup.spawnReaper(o.session, process.pid);
  };
  let side: Promise<LaunchSide> | undefined;
  const launchSide = () =>
    (side ??= Promise.all([import("./docker-launch.ts"), dockerode(), import("../docker/cleanup.ts")]).then(([m, e, c]) => m.launchSide(e.engine(), o, () => spawnReaper(c))));
  // an eager server with nothing at all under its name in the catalog cache (whatever its image's id turns out to
  // be) starts before the client is answered: its launch side loads and the reaper starts now, beside the look-up of
  // that id, instead of after it (issue 15: cold start)
  const cache = o.catalogCache;
  if (cache?.anyFor && (o.lookUpEarly ?? []).some((s) => s.source.kind !== "builtin" && !cache.anyFor!(s))) {
    void import("../docker/cleanup.ts").then(spawnReaper, () => {}); // failed: the launch side spawns it
    void launchSide().catch(() => {}); // its first start is told
  }
  // SPEC 4.2: this start removes what dead gateways left, whether or not any server of its own ever starts (all lazy,
  // all unavailable, all shown from the cache and never called); the first container sweeps at once, else this does,
  // once the client has had its first answers (loading the launch side costs the main thread ~35 ms)
  const sweepSoon = setTimeout(() => void launchSide().then((l) => l.sweep(), () => {}), SWEEP_AFTER_MS);
  sweepSoon.unref();
  // an eager server with nothing to show from the catalog cache starts here, before the gateway's own code loads:
  // its client's initialize waits for it (issue 15: start cost). Its first prepare and launch take what this began.
  const early = new Map<string, { prepared: Promise<void>; launched: Promise<LaunchedServer>; taken: boolean }>();
  const startEarly = (server: ResolvedServer): Promise<unknown> => {
    let created!: () => void;
    const made = new Promise<void>((resolve) => (created = resolve));
    // its image was just seen in the engine (its id decided this start): not inspected again
    const prepared = launchSide().then((l) => l.prepare(server, server.source.kind === "image"));
    const launched = prepared.then(async () => (await launchSide()).launch(server, created));
    prepared.catch(() => {}); // told to the server's start, which takes them
    launched.catch(() => {});
    early.set(server.name, { prepared, launched, taken: false });
    // its container started (the engine's start requests all out before the gateway's code loads: loading it blocks
    // this thread for tens of ms), or its failure; at most EARLY_START_WAIT_MS after it was made (a slow engine
    // start is the server's own start to wait for, within its startup timeout, not the gateway's)
    const settled = launched.then(() => {}, () => {});
    return Promise.race([settled, made.then(() => new Promise<void>((r) => setTimeout(r, EARLY_START_WAIT_MS).unref()))]);
  };
  const remembered = o.catalogCache ? rememberedIn(o.catalogCache, o.config, o.lookUpEarly ?? [], startEarly, o.earlyAnswers, o.imageIds) : { earlyStarts: Promise.resolve() };
  return {
    async prepare(server) {
      const e = early.get(server.name);
      if (e && !e.taken) {
        e.taken = true;
        return e.prepared.catch((err: unknown) => {
          early.delete(server.name); // a later start prepares afresh
          throw err;
        });
      }
      await (await launchSide()).prepare(server);
    },
    async launch(server) {
      const e = early.get(server.name);
      if (e) {
        early.delete(server.name);
        return e.launched;
      }
      return (await launchSide()).launch(server);
    },
    ...remembered,
    async close() {
      clearTimeout(sweepSoon);
      // what was started early and never taken is the session's too: removed with it
      await (await launchSide()).close();
    },
  };
}

/**
 * The catalog cache keyed by the id of the image a server runs: read under the id its reference has now (a template
 * server's content tag, an `image:` reference), without building or pulling (a missing image: nothing to show);
 * written under the id of the image the launched container runs. When that is not the image an entry was shown from
 * (the reference moved between the two), nothing is written this run: what the server was taken for (its era) came
 * from the other image, and the next start reads nothing for the new one and probes it. An early server with nothing
 * at its name is started at once (`startEarly`); the SDK (for the checks) is loaded only for a file that is there.
 */
function rememberedIn(
  cache: CatalogCache,
  config: ResolvedConfig,
  early: readonly ResolvedServer[],
  startEarly: (server: ResolvedServer) => Promise<unknown>,
  earlyAnswers: Promise<void> | undefined,
  imageIds: Promise<ReadonlyMap<string, string | undefined>> | undefined,
): Pick<Launcher, "remembered" | "remember" | "earlyStarts"> {
  const shownFrom = new Map<string, string>();
  const imageId = (ref: string) => imageIdOf(ref, dockerodeImageId).catch(() => undefined);
  const idFor = async (server: ResolvedServer, idOf: (ref: string) => Promise<string | undefined>) => {
    if (server.source.kind === "builtin") return undefined;
    // an `image:` server runs its reference; a template server its content tag (images/, loaded only for one)
    const ref = server.source.kind === "image" ? server.source.image : await templateRef(config, server);
    return ref ? idOf(ref) : undefined;
  };
  const read = async (server: ResolvedServer, id: string | undefined) => {
    if (!id) return undefined;
    await earlyAnswers; // the checks load the SDK: not while the client's first requests can be answered early
    await loadCatalogChecks();
    return { id, entry: cache.read(server, id) };
  };
  const lookUp = async (server: ResolvedServer) => read(server, await idFor(server, imageId));
  // taken by the server's first look-up; a later one looks again. The early ones ask the engine once per reference
  // (servers of one image: one inspect, not one each), all at the same moment
  const started = new Map<string, ReturnType<typeof lookUp>>();
  const ids = new Map<string, Promise<string | undefined>>();
  const idOnce = (ref: string) => {
    let p = ids.get(ref);
    if (!p) ids.set(ref, (p = imageId(ref)));
    return p;
  };
  const begun: Promise<unknown>[] = [];
  for (const s of early) {
    // its image is there and nothing is at its name: nothing can be shown, it starts now. One whose image is not there
    // yet (a build or pull comes first) starts with the others after the client's initialize: a build before it would
    // keep serve from reading its client at all (initialize waits at most INITIALIZE_WAIT_MS for starts, not for builds)
    // the id the caller asked at this start (on the engine's socket, a template's tag planned without dockerode), else asked here
    const id = (imageIds ?? Promise.resolve(undefined)).then((known) => known?.get(s.name) ?? idFor(s, idOnce), () => idFor(s, idOnce));
    const decided = id.then((id) => ({ id, none: s.source.kind !== "builtin" && id !== undefined && !cache.exists(s, id) }));
    begun.push(decided.then((d) => (d.none ? startEarly(s) : undefined)).catch(() => {}));
    const p = decided.then((d) => (d.none ? undefined : read(s, d.id)));
    p.catch(() => {}); // its first look-up is told
    started.set(s.name, p);
  }
  return {
    earlyStarts: Promise.all(begun).then(() => {}),
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
      await loadCatalogChecks();
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
