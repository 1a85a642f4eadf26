/**
 * Building one server's image: plan → skip when the content tag exists → build (classic builder) → clean up what a
 * build leaves untagged → inspect, and push when asked. Progress goes out as events; failures are McpboxErrors.
 */
import type { Docker } from "../docker/engine.ts";
import {
  buildImage,
  danglingImageIds,
  inspectImage,
  pullImage,
  pushImage,
  removeImages,
  tagImage,
} from "../docker/image-build.ts";
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { McpboxError, messageOf } from "../errors.ts";
import { planBuild, type BuildPlan } from "./plan.ts";
import { BuildLog, type BuildMessage, type Step } from "./steps.ts";
import { buildFailure } from "./failure.ts";
import type { PullResult } from "./pull.ts";

export const IMAGE_LABEL = {
  managed: "mcpbox.managed-image",
  server: "mcpbox.server",
  configHash: "mcpbox.config-hash",
  templateVersion: "mcpbox.template-version",
  contentHash: "mcpbox.content-hash",
} as const;

export interface BuildResult {
  server: string;
  /** mcpbox/<server> */
  image: string;
  /** the full reference to run, mcpbox/<server>:<hash> */
  tag: string;
  size: number;
  user: string;
  seconds: number;
  cached: boolean;
  pushed?: string;
}

export type BuildEvent =
  | { type: "checking"; server: string }
  | { type: "cached"; server: string; result: BuildResult }
  | { type: "building"; server: string; tag: string }
  | { type: "step"; server: string; step: Step }
  | { type: "pushing"; server: string; ref: string }
  | { type: "done"; server: string; result: BuildResult }
  | { type: "failed"; server: string; error: McpboxError }
  // an `image:` server's image: pulled when missing (SPEC 4.2), so CI can prefetch with `mcpbox build`
  | { type: "pulling"; server: string; image: string }
  | { type: "pull-progress"; server: string; line: string }
  | { type: "pulled"; server: string; result: PullResult };

export interface BuildOptions {
  readonly noCache?: boolean;
  readonly pull?: boolean;
  readonly push?: boolean;
  /** --ca-cert; build.caCerts otherwise */
  readonly caCert?: string | undefined;
  readonly onEvent?: (e: BuildEvent) => void;
}

export const planFor = (docker: Docker, config: ResolvedConfig, server: ResolvedServer, caCert?: string) =>
  planBuild(server, config, { caCert: caCert ?? config.build.caCerts, imageId: async (ref) => (await inspectImage(docker, ref))?.id });

export async function buildServer(docker: Docker, config: ResolvedConfig, server: ResolvedServer, opts: BuildOptions = {}): Promise<BuildResult> {
  const emit = opts.onEvent ?? (() => {});
  const started = performance.now();
  emit({ type: "checking", server: server.name });
  try {
    if (opts.push) registryOf(config); // before a long build, not after it
    await prepareBases(docker, config, server, opts.pull === true);
    const plan = await planFor(docker, config, server, opts.caCert);
    const existing = opts.noCache ? undefined : await inspectImage(docker, plan.tag);
    let result: BuildResult;
    if (existing) {
      result = resultOf(plan, existing, started, true);
      emit({ type: "cached", server: server.name, result });
    } else {
      emit({ type: "building", server: server.name, tag: plan.tag });
      await runBuild(docker, config, plan, opts, (step) => emit({ type: "step", server: server.name, step }));
      const built = await inspectImage(docker, plan.tag);
      if (!built) throw new McpboxError("failed", `${server.name}: the build finished but ${plan.tag} is missing`);
      result = resultOf(plan, built, started, false);
    }
    if (opts.push) {
      const ref = await pushTo(docker, config, plan, (r) => emit({ type: "pushing", server: server.name, ref: r }));
      result = { ...result, pushed: ref };
    }
    if (!existing) emit({ type: "done", server: server.name, result });
    return result;
  } catch (e) {
    const error = e instanceof McpboxError ? e : new McpboxError("failed", `${server.name}: ${messageOf(e)}`, { cause: e });
    emit({ type: "failed", server: server.name, error });
    throw error;
  }
}

async function runBuild(docker: Docker, config: ResolvedConfig, plan: BuildPlan, opts: BuildOptions, onStep: (s: Step) => void) {
  const log = new BuildLog();
  const before = await danglingImageIds(docker);
  try {
    await buildImage(
      docker,
      {
        files: plan.files,
        dockerfile: plan.dockerfileName,
        tag: plan.tag,
        labels: {
          [IMAGE_LABEL.managed]: "true",
          [IMAGE_LABEL.server]: plan.server,
          [IMAGE_LABEL.configHash]: config.hash,
          ...(plan.templateVersion ? { [IMAGE_LABEL.templateVersion]: plan.templateVersion } : {}),
          [IMAGE_LABEL.contentHash]: plan.hash,
        },
        buildArgs: plan.buildArgs,
        noCache: opts.noCache === true,
        pull: opts.pull === true && plan.kind === "build",
      },
      (m) => {
        if (log.feed(m as BuildMessage) && log.step) onStep(log.step);
      },
    );
  } finally {
    // untagged leftovers of this build (a failed step's parent, the builder stage): ours, so removed
    const after = await danglingImageIds(docker);
    await removeImages(docker, log.imageIds.filter((id) => after.has(id) && !before.has(id)).reverse());
  }
  if (log.error !== undefined) throw buildFailure(plan.server, log, opts.caCert ?? config.build.caCerts);
}

/** --pull refreshes the base images; a template's missing base is pulled too, with an error that says what to do. */
async function prepareBases(docker: Docker, config: ResolvedConfig, server: ResolvedServer, refresh: boolean) {
  const src = server.source;
  if (src.kind !== "template") return; // a Dockerfile's FROM images are pulled by the engine (pull: true)
  const base = config.build.baseImages[src.template];
  if (!refresh && (await inspectImage(docker, base))) return;
  try {
    await pullImage(docker, base);
  } catch (e) {
    throw new McpboxError("failed", `${server.name}: cannot pull the base image ${base}: ${messageOf(e)}`, {
      hint: refresh
        ? "no registry is reachable: build without --pull to use the local image"
        : `build or load ${base} locally, or point build.baseImages.${src.template} at an image you have`,
      cause: e,
    });
  }
}

async function pushTo(docker: Docker, config: ResolvedConfig, plan: BuildPlan, onPush: (ref: string) => void): Promise<string> {
  const registry = registryOf(config);
  const repo = `${registry}/${plan.repo}`;
  const ref = `${repo}:${plan.hash}`;
  onPush(ref);
  await tagImage(docker, plan.tag, repo, plan.hash);
  try {
    await pushImage(docker, ref);
  } catch (e) {
    await removeImages(docker, [ref]); // only the registry tag goes; the image keeps its mcpbox tag
    throw new McpboxError("failed", `${plan.server}: pushing ${ref} failed: ${messageOf(e)}`, {
      hint: `check that ${registry} is reachable and that you are logged in (docker login)`,
      cause: e,
    });
  }
  return ref;
}

export function registryOf(config: ResolvedConfig): string {
  const registry = config.build.registry?.replace(/\/+$/, "");
  if (!registry) {
    throw new McpboxError("config", "--push needs build.registry", {
      hint: 'set build: { registry: "registry.example.com/team" } in the config',
    });
  }
  return registry;
}

function resultOf(plan: BuildPlan, info: { size: number; user: string }, started: number, cached: boolean): BuildResult {
  return {
    server: plan.server,
    image: plan.repo,
    tag: plan.tag,
    size: info.size,
    user: info.user || "root",
    seconds: Math.round((performance.now() - started) / 10) / 100,
    cached,
  };
}
