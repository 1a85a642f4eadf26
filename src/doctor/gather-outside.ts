/**
 * The facts behind outside-checks.ts, measured through the engine: each `image:` server's image (inspected, else
 * asked of its registry without pulling) and a build's TLS to the npm registry (a probe container). Never throws.
 */
import { hostBundle } from "../images/ca-bundle.ts";
import type { ResolvedConfig } from "../config/resolve.ts";
import { engine } from "../docker/engine.ts";
import { registryHas } from "../docker/images.ts";
import { localImageSize } from "../docker/probe.ts";
import { probeRegistryTls, REGISTRY_URL } from "../docker/tls-probe.ts";
import { messageOf } from "../errors.ts";
import type { ImageFacts, TlsFacts } from "./outside-checks.ts";

export async function imageFacts(config: ResolvedConfig | undefined): Promise<ImageFacts[]> {
  const servers = (config?.servers ?? []).flatMap((s) => (s.source.kind === "image" ? [{ server: s.name, image: s.source.image }] : []));
  // one registry round trip each, side by side: a config may name many images
  return Promise.all(servers.map(imageFact));
}

async function imageFact({ server, image }: { server: string; image: string }): Promise<ImageFacts> {
  try {
    const size = await localImageSize(image);
    if (size !== undefined) return { server, image, state: "present", size };
    const { digest } = await registryHas(engine(), image);
    return { server, image, state: "pullable", digest };
  } catch (e) {
    return { server, image, state: "unpullable", reason: messageOf(e) };
  }
}

export async function tlsFacts(config: ResolvedConfig | undefined, nodeBase: string | undefined): Promise<TlsFacts> {
  const caCerts = config?.build.caCerts;
  const facts = {
    url: REGISTRY_URL,
    image: nodeBase,
    caCerts,
    hostBundle: hostBundle(),
    usedBy: (config?.servers ?? []).filter((s) => s.source.kind === "template").map((s) => s.name),
  };
  if (!nodeBase) return { ...facts, outcome: undefined };
  const outcome = await probeRegistryTls(nodeBase, caCerts).catch((e: unknown) => ({ ok: false as const, code: "PROBE_FAILED", message: messageOf(e) }));
  return { ...facts, outcome };
}
