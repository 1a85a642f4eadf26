/**
 * The launch side of the Docker launcher (docker-launcher.ts): images resolved (built, or pulled for `image:`
 * servers, when missing) before the startup clock runs, containers started under the run policy with the session's
 * labels, an allowlisted server's egress, a "bridge" server's own network, the built-in code runner. Loaded by the
 * first start, not before the client is answered from the catalog cache (issue 15: start cost): nothing here is needed
 * for that. Before the first container, network or egress of this gateway, the reaper that removes this session's
 * containers if the gateway dies is running (SPEC 4.2); dead gateways' leftovers are swept beside them.
 */
import os from "node:os";
import { withFix } from "../images/pull-failure.ts";
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { removeSession, spawnReaper, sweepDeadOwners } from "../docker/cleanup.ts";
import { startServerContainer } from "../docker/container.ts";
import type { Docker } from "../docker/engine.ts";
import { containerLabels } from "../policy/labels.ts";
import { containerOptions } from "../policy/run.ts";
import { runtimeCreateError, runtimeGuard } from "../docker/runtimes.ts";
import { ensureServerNetwork, serverNetworkName, wantsOwnNetwork } from "../docker/server-network.ts";
import { McpboxError } from "../errors.ts";
import type { EgressRecord } from "../egress/record.ts";
import type { AuditSink } from "./audit.ts";
import type { CatalogCache } from "./catalog-cache.ts";
import { egressPool } from "./egress.ts";
import type { LaunchedServer, Launcher } from "./launcher.ts";
import type { Redact } from "./redact.ts";
import type { SecretEnv } from "./secrets.ts";

export interface DockerLauncherOptions {
  config: ResolvedConfig;
  session: string;
  secrets: ReadonlyMap<string, SecretEnv>;
  redact: Redact;
  log: (line: string) => void;
  maxMessageBytes?: number;
  /** the code runner writes the exact code of each run here, the egress proxy each connection */
  audit?: AuditSink;
  /** each egress connection of an allowlisted server, redacted (for the monitor) */
  onEgress?: (r: EgressRecord) => void;
  /** what each server offered when it last ran its image: shown while it starts (serve) */
  catalogCache?: CatalogCache;
  /** the engine's ping, started by the caller earlier (serve: while the config loads); pinged here when absent */
  engineUp?: Promise<void>;
  /** the servers whose catalog-cache look-up starts now, beside the sweep, instead of at their first start */
  lookUpEarly?: readonly ResolvedServer[];
  /** the catalog checks (the SDK) load after this: a stdio client's first requests answered early (start.ts) */
  earlyAnswers?: Promise<void>;
  /** image ids already asked of the engine at this start (by server name): the early look-ups take them */
  imageIds?: Promise<ReadonlyMap<string, string | undefined>>;
}

export interface LaunchSide extends Pick<Launcher, "close"> {
  /**
   * Work before the startup clock (a build or pull of a missing image). `present`: the launcher has just seen the
   * server's `image:` reference in the engine (its early look-up), so it is not asked again and nothing is pulled
   */
  prepare(server: ResolvedServer, present?: boolean): Promise<void>;
  /** the sweep of dead gateways' leftovers (SPEC 4.2), once: by the first container, or by the launcher soon after start */
  sweep(): void;
  /** `onCreated`: told once the engine has made the server's container (before its attach and start) */
  launch(server: ResolvedServer, onCreated?: () => void): Promise<LaunchedServer>;
}

/**
 * `reaper`: spawns the session's reaper once (the launcher may have spawned it already, before this side loaded: a
 * cold start's first containers then find it booted); every container, network and egress waits for it.
 */
export function launchSide(docker: Docker, o: DockerLauncherOptions, reaper: () => void = once(() => spawnReaper(o.session, process.pid))): LaunchSide {
  /**
   * The reaper, once, before anything of this session is made in the engine; the sweep of dead gateways' leftovers
   * beside the first containers (it removes only what a gone owner's pid labels, never this live gateway's: its lists
   * cost a cold start a round trip of a loaded engine before every container, ~60 ms under strace at load 3.5)
   */
  let ready = false;
  let swept = false;
  const sweep = () => {
    if (swept) return;
    swept = true;
    void sweepDeadOwners(docker).then(
      (n) => n > 0 && o.log(`removed ${n} container(s) left by gateways that are gone`),
      () => {},
    );
  };
  const engineReady = () => {
    if (ready) return;
    ready = true;
    reaper();
    sweep();
  };
  const images = new Map<string, Promise<string>>();
  const runtimeOffered = runtimeGuard(docker); // runtime "gvisor" and no runsc: refused before any image or container
  /** A "bridge" server's own network: made at its first launch, reused by its restarts (made again if it went). */
  const ownNetwork = (server: ResolvedServer): Promise<string> => {
    const labels = containerLabels({ session: o.session, server: server.name, ownerPid: process.pid, configHash: o.config.hash, ownerHost: os.hostname() });
    return ensureServerNetwork(docker, serverNetworkName(o.session, server.name), labels);
  };
  const egress = egressPool({
    docker, session: o.session, configHash: o.config.hash, redact: o.redact, audit: o.audit,
    secretValues: [...o.secrets.values()].flatMap((s) => Object.values(s)),
    ...(o.onEgress ? { onRecord: o.onEgress } : {}),
  });

  const imageOf = (server: ResolvedServer, present = false): Promise<string> => {
    let p = images.get(server.name);
    if (!p) {
      // the server's state shows only a message: the fix travels inside it, printed once
      p = resolveImage(server, present).catch((e: unknown) => Promise.reject(e instanceof McpboxError ? reported(server.name, e) : e));
      images.set(server.name, p);
      // a failed build or pull stays failed for this session: a restart would only repeat it (and its report)
      p.catch(() => {});
    }
    return p;
  };

  const resolveImage = async (server: ResolvedServer, present: boolean): Promise<string> => {
    if (server.source.kind === "builtin") return (await runner()).codeRunnerImage(docker, o.config, (line) => o.log(`${server.name}: ${line}`));
    // seen in the engine a moment ago: ensureImages would only inspect it again (one round trip before the create,
    // and the build and pull code loaded for nothing). Gone by the create: the create says so (image not found)
    if (present && server.source.kind === "image") return server.source.image;
    const { ensureImages } = await import("../images/ensure.ts"); // builds and pulls: only for an image not seen yet
    const refs = await ensureImages(docker, o.config, [server.name], { onProgress: (line) => o.log(`${server.name}: ${line}`) });
    const ref = refs.get(server.name);
    if (!ref) throw new McpboxError("failed", `image for server ${server.name} is not built`, { hint: "run `mcpbox build`" });
    return ref;
  };

  /** A build's last output lines go to stderr here; the message with its fix is the server's state, shown by the gateway. */
  const reported = (name: string, e: McpboxError): McpboxError => {
    for (const line of e.details) o.log(`${name}: ${o.redact(line)}`);
    return withFix(e, `${name}: `); // the gateway names the server itself
  };

  return {
    sweep,
    async prepare(server, present) {
      await runtimeOffered(server);
      await Promise.all([imageOf(server, present), server.egress ? egress.image() : undefined]);
    },
    async launch(server, onCreated): Promise<LaunchedServer> {
      const image = await imageOf(server);
      engineReady();
      const ctx = { session: o.session, configHash: o.config.hash, ownerPid: process.pid, image };
      if (server.source.kind === "builtin") {
        const { launchCodeRunner, runnerAudit } = await runner();
        const audit = o.audit && runnerAudit(o.audit, o.session, server.name, o.redact);
        return launchCodeRunner(server, { docker, ...ctx, ...(audit ? { audit } : {}) });
      }
      // the forwarder owns the namespace the server joins: it runs first, and outlives the server's restarts
      const wiring = server.egress ? await egress.ensure(server) : undefined;
      const own = wantsOwnNetwork(server) ? { networkMode: await ownNetwork(server), env: {} } : undefined;
      const options = containerOptions(server, ctx, o.secrets.get(server.name) ?? {}, wiring ?? own);
      const container = await startServerContainer(docker, options, {
        ...(o.maxMessageBytes === undefined ? {} : { maxMessageBytes: o.maxMessageBytes }),
        onNonJsonLine: nonJsonReporter(server.name, o),
      }, onCreated).catch((e: unknown) => Promise.reject(runtimeCreateError(server, e)));
      if (wiring) {
        // a dead proxy or forwarder leaves the server cut off: stopped, it is restarted with a fresh egress
        void Promise.race([egress.lost(wiring), container.exited.then(() => "exited" as const)]).then((why) => {
          if (why === "exited") return;
          o.log(`${server.name}: its egress proxy stopped; restarting the server with a new one`);
          void container.stop(1000).catch(() => {});
        });
      }
      return container;
    },
    async close() {
      await egress.close(); // the gateway has stopped the servers: their proxies, networks and volumes go now
      await removeSession(docker, o.session);
    },
  };
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}

/** The built-in code runner (an in-process SDK server), loaded for a config that has it. */
const runner = () => import("./runner-launcher.ts");

/** Logs the first non-JSON lines of a server, then one summary line per thousand: stderr stays readable. */
function nonJsonReporter(name: string, o: DockerLauncherOptions): (line: string) => void {
  let count = 0;
  return (line) => {
    count++;
    if (count <= 5) o.log(`[${name}] dropped a non-JSON line on stdout: ${o.redact(line).slice(0, 200)}`);
    else if (count % 1000 === 0) o.log(`[${name}] dropped ${count} non-JSON lines on stdout so far`);
  };
}
