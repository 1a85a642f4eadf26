/**
 * Egress for allowlisted servers (SPEC 10) as the gateway runs it: the egress image ensured once per gateway, one
 * proxy + forwarder per server started before its first container and kept across its restarts (a fresh one when
 * either has died), each connection an audit line (redacted, SPEC 4.5) and a monitor event; all removed at close,
 * after the servers' containers.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DEFAULTS, type ResolvedServer } from "../config/resolve.ts";
import { isSea, repoRoot } from "../assets.ts";
import type { Docker } from "../docker/engine.ts";
import { containerLabels } from "../policy/labels.ts";
import { containerName } from "../policy/run.ts";
import { egressImage } from "../egress/egress-image.ts";
import { startEgress, type RunningEgress } from "../egress/launch.ts";
import { auditLine, type EgressRecord } from "../egress/record.ts";
import { McpboxError } from "../errors.ts";
import type { AuditSink, EgressAuditLine } from "./audit.ts";
import { egressAuditor } from "./egress-audit.ts";
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
  // each connection is a line, within a rate per server; a second's surplus is summed up in one (egress-audit.ts)
  const audit = o.audit;
  const auditor = audit && egressAuditor(o.session, (line) => audit.write(line as EgressAuditLine));
  const record = (r: EgressRecord) => {
    // host names and reasons come from the server: a secret spelled into a name is redacted like anywhere else
    const clean: EgressRecord = { ...r, host: hide(r.host), ...(r.reason ? { reason: hide(r.reason) } : {}) };
    auditor?.record(clean, { ...auditLine(o.session, clean), time: clean.time });
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
      image ??= egressImage(o.docker, egressBinary, DEFAULTS.baseImages.node);
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
      auditor?.flush(); // what the last second summed up is written before the audit log closes
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
  return egressBinaryOf({
    sea: isSea(),
    execPath: process.execPath,
    root: repoRoot(),
    fromSource: fs.existsSync(path.join(repoRoot(), "src", "cli", "main.ts")),
    platform: process.platform,
    arch: process.arch,
    exists: fs.existsSync,
  });
}

export interface EgressBinaryFacts {
  sea: boolean;
  execPath: string;
  /** the repository in development; the package's dist/ folder for the npm bundle */
  root: string;
  fromSource: boolean;
  platform: NodeJS.Platform;
  arch: string;
  exists: (p: string) => boolean;
}

/**
 * The proxy runs in a Linux container of the engine's architecture (taken as this machine's), made of a Linux mcpbox
 * single executable: this one on Linux, dist/mcpbox from the sources, else `mcpbox-linux-<arch>` beside this mcpbox
 * (the npm package ships no executable; a macOS or Windows one cannot run in the container). None: a clear error.
 */
export function egressBinaryOf(f: EgressBinaryFacts): string {
  if (f.sea && f.platform === "linux") return f.execPath;
  const linuxName = `mcpbox-linux-${f.arch === "arm64" ? "arm64" : "x64"}`;
  if (f.fromSource) {
    const built = path.join(f.root, "dist", "mcpbox");
    if (f.platform === "linux" && f.exists(built)) return built;
    if (f.exists(path.join(f.root, "dist", linuxName))) return path.join(f.root, "dist", linuxName);
    throw new McpboxError("environment", `an allowlisted server needs the egress image, made from dist/${f.platform === "linux" ? "mcpbox" : linuxName}, which is not built`, {
      hint: f.platform === "linux" ? "run `npm run build`" : "run `npm run build -- --all`",
    });
  }
  const p = f.platform === "win32" ? path.win32 : path.posix;
  const folder = f.sea ? p.dirname(f.execPath) : f.root; // the npm bundle's root is the package's dist/
  const beside = p.join(folder, linuxName);
  if (f.exists(beside)) return beside;
  const what = f.sea ? `this ${f.platform} executable cannot run in the engine's Linux container` : "the npm package ships no mcpbox executable";
  throw new McpboxError("environment", `an allowlisted server needs the egress image, made from the Linux mcpbox executable ${linuxName}: ${what}`, {
    hint: `download ${linuxName} of this mcpbox version from its release into ${folder}`,
  });
}
