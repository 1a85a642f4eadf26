/** Assembling a gateway from a config, shared by `mcpbox serve` and `mcpbox tools`. */
import { randomBytes } from "node:crypto";
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { isMcpboxError, McpboxError, messageOf } from "../errors.ts";
import { VERSION } from "../version.ts";
import { homeFolder } from "../home.ts";
import { openAudit } from "./audit.ts";
import { catalogCache } from "./catalog-cache.ts";
import { listCache } from "./list-cache.ts";
import { dockerLauncher } from "./docker-launcher.ts";
import type { Launcher } from "./launcher.ts";
import { GatewayEvents, type GatewayEvent, type GatewayInfo } from "../monitor/events.ts";
import type { EgressRecord } from "../egress/record.ts";
import type { Gateway } from "./gateway.ts";
import { redactor } from "./redact.ts";
import { resolveSecrets, type SecretEnv } from "./secrets.ts";

export interface StartedGateway {
  gateway: Gateway;
  events: GatewayEvents;
  info: GatewayInfo;
}

export const newSessionId = (): string => randomBytes(4).toString("hex");

/** The servers named on the command line (all when none), in config order. */
export function selectServers(config: ResolvedConfig, names: readonly string[]): ResolvedServer[] {
  if (names.length === 0) return [...config.servers];
  const known = new Set(config.servers.map((s) => s.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new McpboxError("usage", `unknown server${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`, {
      hint: `the config has: ${[...known].join(", ") || "no servers"}`,
    });
  }
  return config.servers.filter((s) => names.includes(s.name));
}

export interface GatewayStartOptions {
  /**
   * Show what each server offered when it last ran the same image while it starts (catalog-cache.ts): `serve`, whose
   * client sees the tools at once. Off for `mcpbox tools`, which reports each server as it really starts.
   */
  catalogCache?: boolean;
  /** the engine's ping, started earlier by the caller (serve starts it while the config loads) */
  engineUp?: Promise<void>;
  /**
   * Told the launcher as soon as it exists: servers may start before the gateway is made (nothing cached for them),
   * so a stop in that moment has containers to remove (serve closes it)
   */
  onLauncher?: (launcher: Launcher) => void;
  /**
   * Resolves once a stdio client's first requests were answered from the record of this set-up's answers, or none
   * could be (early-stdio.ts): the gateway's code and the catalog checks (the SDK) load after it, since loading them
   * holds the one thread for tens of ms
   */
  earlyAnswers?: Promise<void>;
  /** each eager server's image id, asked by the caller at this start (answer-record.ts eagerImageIds) */
  imageIds?: Promise<ReadonlyMap<string, string | undefined>>;
}

export async function createGateway(config: ResolvedConfig, names: readonly string[], logLine: (line: string) => void, o: GatewayStartOptions = {}): Promise<StartedGateway> {
  const servers = selectServers(config, names);
  if (servers.length === 0) throw new McpboxError("config", "the config has no servers", { hint: "add one under servers: { ... }" });
  const { secrets, unavailable } = serverSecrets(servers);
  const redact = redactor([...secrets.values()].flatMap((s) => Object.values(s)));
  // every line the gateway logs, redacted in one place: many quote what a server chose (tool names in a clash or a
  // refused list, template URIs, restart reasons), and a server holds the secrets it was given (SPEC 4.5; hrev)
  const log = (line: string) => logLine(redact(line));
  const session = newSessionId();
  const audit = openAudit(config);
  const events = new GatewayEvents();
  const onEgress = (r: EgressRecord) => events.emit(egressEvent(r));
  const catalog = o.catalogCache ? catalogCache(() => homeFolder("cache/catalog"), { warn: (line) => log(`warning: ${line}`), redact }) : undefined;
  // the eager servers' catalog look-ups start beside the sweep: the client's initialize waits for them
  const lookUpEarly = servers.filter((s) => s.startup === "eager" && !unavailable.has(s.name));
  const launcher = await dockerLauncher({
    config, session, secrets, redact, log, audit, onEgress,
    ...(catalog ? { catalogCache: catalog, lookUpEarly } : {}),
    ...(o.engineUp ? { engineUp: o.engineUp } : {}),
    ...(o.earlyAnswers ? { earlyAnswers: o.earlyAnswers } : {}),
    ...(o.imageIds ? { imageIds: o.imageIds } : {}),
  });
  o.onLauncher?.(launcher);
  const listCache = listCacheFor();
  // the gateway's code (the SDK's server side and its protocol schemas) loads once the servers with nothing cached
  // have their containers: their clients wait for them, not for it (issue 15: start cost)
  await launcher.earlyStarts;
  await o.earlyAnswers;
  const { Gateway } = await import("./gateway.ts");
  const gateway = new Gateway({ servers, launcher, session, events, audit, redact, log, listCache, unavailable });
  const info: GatewayInfo = { session, pid: process.pid, configFile: config.file, startedAt: Date.now(), version: VERSION };
  return { gateway, events, info };
}

/** An egress record as a monitor event (the record's own time when it is one, else now). */
export function egressEvent(r: EgressRecord, now = Date.now()): Extract<GatewayEvent, { type: "egress" }> {
  const at = Date.parse(r.time);
  return {
    type: "egress", at: Number.isFinite(at) ? at : now, server: r.server, host: r.host, port: r.port, outcome: r.outcome,
    ...(r.reason ? { reason: r.reason } : {}), bytesUp: r.bytesUp, bytesDown: r.bytesDown, durationMs: r.durationMs,
  };
}

/** Each server's secrets; a server whose secrets cannot be had fails alone (SPEC 4.2), the others are served. */
export function serverSecrets(servers: readonly ResolvedServer[], env: NodeJS.ProcessEnv = process.env) {
  const secrets = new Map<string, SecretEnv>();
  const unavailable = new Map<string, string>();
  for (const s of servers) {
    try {
      secrets.set(s.name, resolveSecrets(s, env));
    } catch (e) {
      if (!isMcpboxError(e)) throw e;
      // as failures.ts failureText words an McpboxError (that file brings the SDK's error classes with it)
      unavailable.set(s.name, e.hint ? `${messageOf(e)}; fix: ${e.hint}` : messageOf(e));
    }
  }
  return { secrets, unavailable };
}

const listCacheFor = () => listCache(() => homeFolder("cache/lists"));
