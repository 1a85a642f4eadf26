/**
 * Doctor's checks for egress confinement (SPEC 10), pure: only needed when a server has `network: { allow }`; then
 * the engine must let a container join another's network namespace (`NetworkMode: container:<id>`) and mount a
 * named volume (the proxy's socket), and the egress image must be made from this binary.
 */
import type { CheckResult } from "./checks.ts";

export const EGRESS_CHECK = { engine: "egress confinement", image: "egress image" } as const;

export interface EgressEngineFacts {
  /** the allowlisted servers of the config */
  servers: string[];
  /** undefined: not probed (no local image to probe with) */
  probe?: { containerMode?: string | undefined; volume?: string | undefined; image: string } | undefined;
}

export interface EgressImageFacts {
  servers: string[];
  image?: string;
  error?: { message: string; hint?: string | undefined };
}

const notNeeded = (name: string): CheckResult => ({ name, status: "ok", message: "not needed: no server has a network allowlist" });
const who = (servers: string[]) => `for ${servers.join(", ")}`;

export function egressEngineCheck(f: EgressEngineFacts): CheckResult {
  const name = EGRESS_CHECK.engine;
  if (f.servers.length === 0) return notNeeded(name);
  if (!f.probe) return { name, status: "warn", message: `not checked ${who(f.servers)}: no local image to probe with`, fix: "get the base images first (see above)" };
  if (f.probe.volume) {
    return { name, status: "fail", message: `the engine refused a named volume (the egress proxy's socket) ${who(f.servers)}: ${f.probe.volume}`, fix: "use Docker 19.03+ or Podman 4 with its local volume driver; or drop the allowlist (network: \"none\")" };
  }
  if (f.probe.containerMode) {
    return { name, status: "fail", message: `the engine refused NetworkMode container:<id> (a server joining its forwarder's namespace) ${who(f.servers)}: ${f.probe.containerMode}`, fix: "use Docker 19.03+ or Podman 4, which support --network container:<id>; or drop the allowlist (network: \"none\")" };
  }
  return { name, status: "ok", message: `accepted NetworkMode container:<id> and a named volume ${who(f.servers)} (probed with ${f.probe.image}, removed)` };
}

export function egressImageCheck(f: EgressImageFacts): CheckResult {
  const name = EGRESS_CHECK.image;
  if (f.servers.length === 0) return notNeeded(name);
  if (f.error) return { name, status: "fail", message: `cannot make the egress image ${who(f.servers)}: ${f.error.message}`, fix: f.error.hint ?? "check the engine's disk space and `docker info`, then run `mcpbox doctor` again" };
  return { name, status: "ok", message: `${f.image} ${who(f.servers)}` };
}
