/**
 * Runs doctor's checks: measures the facts (engine through src/docker/probe.ts, files through node:fs) and turns
 * them into results with the pure functions of checks.ts. Never throws for a failed check.
 */
import fs from "node:fs";
import path from "node:path";
import { displayPath, findConfigFile, loadConfigFile } from "../config/load.ts";
import { checkRawConfig } from "../config/zod-check.ts";
import { errorsOf, formatProblem, warningsOf } from "../config/problems.ts";
import { DEFAULTS, resolveConfig, type ResolvedConfig } from "../config/resolve.ts";
import { runtimeNeeds } from "../config/_runtime-checks.ts";
import { engine as dockerEngine, engineAddress, engineDiscovery } from "../docker/engine.ts";
import { engineRuntimes, identifyEngine, type EngineIdentity } from "../docker/runtimes.ts";
import { engineFacts, localImageSize, tryHardenedCreate, type EngineFacts } from "../docker/probe.ts";
import { isMcpboxError, messageOf } from "../errors.ts";
import { mcpboxHome, privateFolder, UntrustedFolder } from "../home.ts";
import * as C from "./checks.ts";
import { egressEngineCheck, egressImageCheck, EGRESS_CHECK } from "./egress-checks.ts";
import { allowlisted, egressEngineFacts, egressImageFacts } from "./gather-egress.ts";
import { imageFacts, tlsFacts } from "./gather-outside.ts";
import { imageCheck, tlsCheck } from "./outside-checks.ts";
import { RUNTIME_CHECK, runtimesCheck, type RuntimeCheckFacts } from "./runtime-checks.ts";

export interface DoctorOptions {
  configPath: string | undefined;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** how long to wait for the engine's first answer */
  engineTimeoutMs?: number;
}

export async function runChecks(o: DoctorOptions): Promise<C.CheckResult[]> {
  const { facts: configFacts, config } = await configState(o);
  const baseImages = Object.entries(config?.build.baseImages ?? DEFAULTS.baseImages) as ["node" | "python", string][];
  const address = engineAddress();
  const engine = await withTimeout(engineFacts(), o.engineTimeoutMs ?? 15_000, `no answer from the Docker engine at ${address}`)
    .catch((e: unknown) => ({ message: messageOf(e), hint: isMcpboxError(e) ? e.hint : undefined }));
  const reachable = "apiVersion" in engine;
  const images = reachable ? await baseImageFacts(baseImages, config) : [];
  const probeImage = images.find((i) => i.size !== undefined)?.image;
  const nodeBase = images.find((i) => i.lang === "node" && i.size !== undefined)?.image;
  const [servers, tls] = reachable ? await Promise.all([imageFacts(config), tlsFacts(config, nodeBase)]) : [[], undefined];
  const identity = reachable ? await engineIdentity() : undefined;
  return [
    C.discoveryCheck(engineDiscovery(), process.platform),
    reachable ? C.engineCheck(address, undefined, identity) : C.engineCheck(address, engine),
    reachable ? C.versionCheck(engine) : C.skipped(C.CHECK.version),
    C.socketCheck(socketFacts(address)),
    ...(reachable ? images.map(C.baseImageCheck) : baseImages.map(([lang]) => C.skipped(C.CHECK.baseImage(lang)))),
    ...(reachable ? servers.map(imageCheck) : imageServers(config).map((name) => C.skipped(C.CHECK.image(name)))),
    tls ? tlsCheck(tls) : C.skipped(C.CHECK.tls),
    C.configCheck(configFacts),
    homeResult(mcpboxHome(o.env)),
    reachable ? C.runtimeCheck(await runtimeFacts(probeImage, engine)) : C.skipped(C.CHECK.runtime),
    reachable ? runtimesCheck(await runtimesFacts(config, identity)) : C.skipped(RUNTIME_CHECK),
    ...(await egressResults(reachable, allowlisted(config), probeImage)),
  ];
}

/** Only for a config with an allowlisted server; otherwise "not needed" (no probe, no image build). */
async function egressResults(reachable: boolean, servers: string[], probeImage: string | undefined): Promise<C.CheckResult[]> {
  if (!reachable && servers.length > 0) return [C.skipped(EGRESS_CHECK.engine), C.skipped(EGRESS_CHECK.image)];
  const [probed, made] = await Promise.all([egressEngineFacts(servers, probeImage), egressImageFacts(servers)]);
  return [egressEngineCheck(probed), egressImageCheck(made)];
}

async function baseImageFacts(images: [C.BaseImageFacts["lang"], string][], config: ResolvedConfig | undefined): Promise<C.BaseImageFacts[]> {
  const facts: C.BaseImageFacts[] = [];
  for (const [lang, image] of images) {
    // an engine error here reads as a missing image: the fix line still tells how to get it
    const size = await localImageSize(image).catch(() => undefined);
    facts.push({ lang, image, size, usedBy: templateUsers(config, lang) });
  }
  return facts;
}

async function configState(o: DoctorOptions): Promise<{ facts: C.ConfigFacts; config?: ResolvedConfig }> {
  try {
    await findConfigFile({ configPath: o.configPath, cwd: o.cwd });
  } catch (e) {
    // no config at all is fine (doctor checks the machine); a -c path that does not exist is not
    if (o.configPath === undefined) return { facts: { state: "none", message: messageOf(e) } };
    return { facts: { state: "unloadable", message: messageOf(e), hint: isMcpboxError(e) ? e.hint : undefined } };
  }
  try {
    const { file, raw } = await loadConfigFile({ configPath: o.configPath, cwd: o.cwd });
    const shown = displayPath(file, o.cwd);
    const checked = checkRawConfig(raw, file);
    const errors = errorsOf(checked.problems).map((p) => formatProblem(shown, p));
    const facts: C.ConfigFacts = {
      state: "loaded",
      file: shown,
      servers: checked.parsed ? Object.keys(checked.parsed.servers).length : 0,
      errors,
      warnings: warningsOf(checked.problems).length,
    };
    const config = errors.length === 0 && checked.parsed ? resolveConfig(checked.parsed, file) : undefined;
    return config ? { facts, config } : { facts };
  } catch (e) {
    return { facts: { state: "unloadable", message: messageOf(e), hint: isMcpboxError(e) ? e.hint : undefined } };
  }
}

const imageServers = (config: ResolvedConfig | undefined) => (config?.servers ?? []).filter((s) => s.source.kind === "image").map((s) => s.name);

function templateUsers(config: ResolvedConfig | undefined, lang: "node" | "python"): string[] {
  if (!config) return [];
  return Object.values(config.servers)
    .filter((s) => s.source.kind === "template" && s.source.template === lang)
    .map((s) => s.name);
}

export function socketFacts(address: string): C.SocketFacts {
  if (!address.startsWith("unix://") && !address.startsWith("/")) return { kind: "remote", address };
  const file = address.replace(/^unix:\/\//, "");
  try {
    if (!fs.statSync(file).isSocket()) return { kind: "unix", path: file, state: "not-a-socket" };
    fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    return { kind: "unix", path: file, state: "ok" };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { kind: "unix", path: file, state: code === "EACCES" || code === "EPERM" ? "no-permission" : "missing" };
  }
}

/** Creates the folder if needed, then writes and removes a file in it. */
function homeResult(home: string): C.CheckResult {
  const probe = path.join(home, `.doctor-${process.pid}`);
  try {
    try {
      privateFolder(home, "$MCPBOX_HOME"); // made 0700; another user's, or one others can write, fails the check
    } catch (e) {
      throw e instanceof UntrustedFolder ? e : ((e as Error).cause ?? e); // the file system's own words
    }
    fs.writeFileSync(probe, "", { flag: "wx" });
    fs.rmSync(probe);
    return C.homeCheck(home);
  } catch (e) {
    return C.homeCheck(home, messageOf(e));
  }
}

async function runtimeFacts(image: string | undefined, engine: EngineFacts): Promise<C.RuntimeFacts> {
  const unsupported = [
    ...(engine.memoryLimit ? [] : ["memory limit"]),
    ...(engine.swapLimit ? [] : ["swap limit"]),
    ...(engine.pidsLimit ? [] : ["pids limit"]),
  ];
  if (!image) return { image, warnings: [], unsupported };
  try {
    return { image, warnings: await tryHardenedCreate(image), unsupported };
  } catch (e) {
    return { image, error: messageOf(e), warnings: [], unsupported };
  }
}

/** Docker or Podman, by /version's names; undefined when the engine would not say. */
async function engineIdentity(): Promise<EngineIdentity | undefined> {
  return dockerEngine().version().then((v) => identifyEngine(v as Parameters<typeof identifyEngine>[0]), () => undefined);
}

/** The engine's runtimes and what the config asks of them. */
async function runtimesFacts(config: ResolvedConfig | undefined, identity: EngineIdentity | undefined): Promise<RuntimeCheckFacts> {
  const needs = config ? runtimeNeeds(config) : [];
  const networked = (config?.servers ?? [])
    .filter((s) => s.runtime === "gvisor" && s.engineRuntime !== undefined && (s.network !== "none" || s.egress !== undefined))
    .map((s) => ({ server: s.name, engineRuntime: s.engineRuntime! }));
  const base = { engine: identity?.kind ?? "Docker", needs, networked } as const;
  try {
    const r = await engineRuntimes(dockerEngine());
    return { ...base, offered: r.names, defaultRuntime: r.defaultRuntime, args: r.args };
  } catch (e) {
    return { ...base, offered: undefined, defaultRuntime: undefined, args: {}, error: messageOf(e) };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
