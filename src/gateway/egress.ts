/**
 * Egress for allowlisted servers (SPEC 10) as the gateway runs it: the egress image ensured once per gateway, one
 * proxy + forwarder per server started before its first container and kept across its restarts (a fresh one when
 * either has died), each connection an audit line (redacted, SPEC 4.5) and a monitor event; all removed at close,
 * after the servers' containers.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ResolvedServer } from "../config/resolve.ts";
import { isSea, repoRoot } from "../assets.ts";
import type { Docker } from "../docker/engine.ts";
import { containerLabels } from "../docker/labels.ts";
import { containerName } from "../docker/policy.ts";
import { ensureEgressImage } from "../egress/image.ts";
import { startEgress, type RunningEgress } from "../egress/launch.ts";
import { auditLine, type EgressRecord } from "../egress/record.ts";
import { McpboxError } from "../errors.ts";
import type { AuditSink } from "./audit.ts";
import { redactor, type Redact } from "./redact.ts";

/** Tests only: more networks (comma-separated) each proxy joins besides its own, where the test's hosts live. */
export const TEST_NETWORKS_ENV = "MCPBOX_TEST_EGRESS_NETWORKS";

export interface EgressPoolOptions {
  docker: Docker;
  session: string;
  configHash: string;
  redact: Redact;
  /** the secret values: a URL's host name arrives lower-cased, so they are looked for in that form too */
  secretValues?: Iterable<string>;
  audit?: AuditSink | undefined;
  onRecord?: (r: EgressRecord) => void;
  env?: NodeJS.ProcessEnv;
}

export interface EgressPool {
  /** the egress image, built once per gateway when missing */
  image(): Promise<string>;
  /** the server's egress: the running one while both of its containers run, otherwise a fresh one */
  ensure(server: ResolvedServer): Promise<RunningEgress>;
  /** resolves when the proxy or the forwarder of this egress has exited (its server's connections then fail closed) */
  lost(e: RunningEgress): Promise<void>;
  /** removes every server's egress (call after the servers' containers are gone) */
  close(): Promise<void>;
}

export function egressPool(o: EgressPoolOptions): EgressPool {
  const env = o.env ?? process.env;
  const running = new Map<string, Promise<RunningEgress>>();
  const lost = new WeakMap<RunningEgress, Promise<void>>();
  let image: Promise<string> | undefined;

  const lower = redactor([...(o.secretValues ?? [])].map((v) => v.toLowerCase()));
  const hide = (text: string) => lower(o.redact(text));
  const record = (r: EgressRecord) => {
    // host names and reasons come from the server: a secret spelled into a name is redacted like anywhere else
    const clean: EgressRecord = { ...r, host: hide(r.host), ...(r.reason ? { reason: hide(r.reason) } : {}) };
    o.audit?.write({ ...auditLine(o.session, clean), time: clean.time });
    o.onRecord?.(clean);
  };

  const start = async (server: ResolvedServer): Promise<RunningEgress> => {
    const extra = (env[TEST_NETWORKS_ENV] ?? "").split(",").map((s) => s.trim()).filter(Boolean);
    const e = await startEgress({
      docker: o.docker,
      image: await pool.image(),
      server: server.name,
      allow: server.egress!.allow,
      labels: containerLabels({ session: o.session, server: server.name, ownerPid: process.pid, configHash: o.configHash, ownerHost: os.hostname() }),
      name: containerName(o.session, server.name),
      onRecord: record,
      ...(extra.length ? { extraNetworks: extra } : {}),
    });
    // one wait per container for the egress's whole life, however often its server restarts
    const waits = [e.proxyId, e.forwarderId].map((id) => o.docker.getContainer(id).wait().then(() => {}, () => {}));
    lost.set(e, Promise.race(waits));
    return e;
  };

  const pool: EgressPool = {
    image() {
      image ??= ensureEgressImage(o.docker, egressBinary());
      image.catch(() => (image = undefined)); // a failed build is tried again at the next start
      return image;
    },
    async ensure(server) {
      const previous = running.get(server.name);
      if (previous) {
        const e = await previous.catch(() => undefined);
        if (e && (await bothRunning(o.docker, e))) return e;
        await e?.stop().catch(() => {});
      }
      const next = start(server);
      running.set(server.name, next);
      next.catch(() => running.get(server.name) === next && running.delete(server.name));
      return next;
    },
    lost: (e) => lost.get(e) ?? Promise.resolve(),
    async close() {
      const all = [...running.values()];
      running.clear();
      await Promise.allSettled(all.map(async (p) => (await p).stop()));
    },
  };
  return pool;
}

async function bothRunning(docker: Docker, e: RunningEgress): Promise<boolean> {
  const states = await Promise.all([e.proxyId, e.forwarderId].map((id) => docker.getContainer(id).inspect().then((i) => i.State.Running, () => false)));
  return states.every(Boolean);
}

/** The mcpbox single executable the image is made of: this one, or dist/mcpbox when running from the sources. */
function egressBinary(): string {
  if (isSea()) return process.execPath;
  const built = path.join(repoRoot(), "dist", "mcpbox");
  if (!fs.existsSync(built)) {
    throw new McpboxError("environment", "an allowlisted server needs the egress image, made from dist/mcpbox, which is not built", {
      hint: "run `npm run build`",
    });
  }
  return built;
}
