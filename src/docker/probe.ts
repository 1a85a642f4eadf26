/**
 * Engine probes for `mcpbox doctor`: what the engine is and supports, and whether it accepts a container with the
 * hardened options of the run policy (created, never started, then removed).
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type Docker from "dockerode";
import { resolveConfig } from "../config/resolve.ts";
import { UserConfigSchema } from "../config/schema.ts";
import { createContainerRaw } from "./create.ts";
import { connectEngine, engine } from "./engine.ts";
import { containerOptions } from "../policy/run.ts";

export interface EngineFacts {
  /** "Docker Engine", "Podman Engine", ... */
  product: string;
  version: string;
  apiVersion: string;
  minApiVersion: string | undefined;
  os: string;
  arch: string;
  cgroupVersion: string | undefined;
  memoryLimit: boolean;
  swapLimit: boolean;
  pidsLimit: boolean;
  securityOptions: string[];
}

/** Pings the engine and reads its version and info; throws the environment error of connectEngine. */
export async function engineFacts(docker: Docker = engine()): Promise<EngineFacts> {
  const basic = await connectEngine(docker);
  const [version, info] = await Promise.all([docker.version(), docker.info() as Promise<Record<string, unknown>>]);
  const components = (version as { Components?: { Name?: string }[] }).Components ?? [];
  const product = components.find((c) => c.Name && /engine/i.test(c.Name))?.Name;
  return {
    product: product && product !== "Engine" ? product : "Docker Engine",
    version: basic.version,
    apiVersion: basic.apiVersion,
    minApiVersion: (version as { MinAPIVersion?: string }).MinAPIVersion,
    os: basic.os,
    arch: basic.arch,
    cgroupVersion: typeof info.CgroupVersion === "string" ? info.CgroupVersion : undefined,
    memoryLimit: info.MemoryLimit !== false,
    swapLimit: info.SwapLimit !== false,
    pidsLimit: info.PidsLimit !== false,
    securityOptions: Array.isArray(info.SecurityOptions) ? (info.SecurityOptions as string[]) : [],
  };
}

/** The size of a local image in bytes, or undefined when the engine does not have it. */
export async function localImageSize(name: string, docker: Docker = engine()): Promise<number | undefined> {
  try {
    return (await docker.getImage(name).inspect()).Size;
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return undefined;
    throw e;
  }
}

export const DOCTOR_LABEL = "mcpbox.doctor";

/** The create options of a default-policy server running `image`, labelled as doctor's own, not a gateway's. */
export function hardenedProbeOptions(image: string, ownerPid = process.pid): Docker.ContainerCreateOptions {
  const parsed = UserConfigSchema.parse({ servers: { doctor: { image } } });
  const server = resolveConfig(parsed, path.join(os.tmpdir(), "mcpbox-doctor.json")).servers[0]!;
  const options = containerOptions(server, { session: "doctor", configHash: "doctor", ownerPid, image }, {});
  return {
    ...options,
    name: `mcpbox-doctor-${ownerPid}-${randomBytes(3).toString("hex")}`,
    Cmd: ["true"],
    Labels: { [DOCTOR_LABEL]: "true", "mcpbox.owner-pid": String(ownerPid) },
  };
}

/** Creates (never starts) a hardened container and removes it; returns the engine's warnings. Throws if refused. */
export async function tryHardenedCreate(image: string, docker: Docker = engine()): Promise<string[]> {
  const options = hardenedProbeOptions(image);
  // the engine's warnings (e.g. no swap limit support) matter here
  const created = await createContainerRaw(docker, options, { 200: true, 201: true, 400: "bad parameter", 404: "no such image", 409: "conflict", 500: "server error" });
  await docker.getContainer(created.Id).remove({ force: true });
  return created.Warnings ?? [];
}
