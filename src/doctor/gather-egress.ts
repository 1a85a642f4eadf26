/**
 * Facts for the egress checks (egress-checks.ts): a forwarder-like container and one joining its namespace with a
 * named volume, started and removed; the egress image ensured as `mcpbox serve` would (built once when missing).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isSea, repoRoot } from "../assets.ts";
import { DEFAULTS, type ResolvedConfig } from "../config/resolve.ts";
import { createContainer } from "../docker/create.ts";
import { engine, type Docker } from "../docker/engine.ts";
import { LABEL } from "../policy/labels.ts";
import { DOCTOR_LABEL, hardenedProbeOptions } from "../docker/probe.ts";
import { egressImage } from "../egress/egress-image.ts";
import { McpboxError, isMcpboxError, messageOf } from "../errors.ts";
import type { EgressEngineFacts, EgressImageFacts } from "./egress-checks.ts";

export const allowlisted = (config: ResolvedConfig | undefined): string[] => (config?.servers ?? []).filter((s) => s.egress).map((s) => s.name);

export async function egressEngineFacts(servers: string[], image: string | undefined, docker: Docker = engine()): Promise<EgressEngineFacts> {
  if (servers.length === 0 || !image) return { servers };
  const volume = `mcpbox-doctor-${process.pid}-egress`;
  // labelled like a gateway's: a doctor killed midway leaves it to the start-up sweep
  const Labels = { [DOCTOR_LABEL]: "true", [LABEL.managed]: "true", [LABEL.ownerPid]: String(process.pid), [LABEL.ownerHost]: os.hostname() };
  const ids: string[] = [];
  try {
    try {
      await docker.createVolume({ Name: volume, Labels });
    } catch (e) {
      return { servers, probe: { image, volume: messageOf(e) } };
    }
    try {
      const owner = hardenedProbeOptions(image);
      const a = await createContainer(docker, { ...owner, Cmd: ["sleep", "30"], Entrypoint: [] });
      ids.push(a.id);
      await a.start();
      const joiner = hardenedProbeOptions(image);
      const b = await createContainer(docker, {
        ...joiner, Cmd: ["true"], Entrypoint: [],
        HostConfig: { ...joiner.HostConfig, NetworkMode: `container:${a.id}`, Mounts: [{ Type: "volume", Source: volume, Target: "/egress" }] },
      });
      ids.push(b.id);
      await b.start();
      const { StatusCode } = (await b.wait()) as { StatusCode: number };
      if (StatusCode !== 0) return { servers, probe: { image, containerMode: `the joining container exited with ${StatusCode}` } };
      return { servers, probe: { image } };
    } catch (e) {
      return { servers, probe: { image, containerMode: messageOf(e) } };
    }
  } finally {
    for (const id of ids.reverse()) await docker.getContainer(id).remove({ force: true }).catch(() => {});
    await docker.getVolume(volume).remove().catch(() => {});
  }
}

export async function egressImageFacts(servers: string[], docker: Docker = engine()): Promise<EgressImageFacts> {
  if (servers.length === 0) return { servers };
  try {
    return { servers, image: await egressImage(docker, egressBinary, DEFAULTS.baseImages.node) };
  } catch (e) {
    return { servers, error: { message: messageOf(e), hint: isMcpboxError(e) ? e.hint : undefined } };
  }
}

/** The image holds this very binary (src/egress/image.ts); from source, the built one. */
function egressBinary(): string {
  if (isSea()) return process.execPath;
  const built = path.join(repoRoot(), "dist", "mcpbox");
  if (!fs.existsSync(built)) throw new McpboxError("environment", "the egress image is made from dist/mcpbox, which is not built", { hint: "run `npm run build`" });
  return built;
}
