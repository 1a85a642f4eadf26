/**
 * The code runner's runtime image: built from templates/runner/ over the local base images, tagged by a hash of the
 * template files and the bases' local ids (`mcpbox/code-runner:<hash>`), built only when that tag is missing.
 */
import { createHash } from "node:crypto";
import { readAsset } from "../assets.ts";
import type { Docker } from "../docker/engine.ts";
import { buildImage, inspectImage, pullImage, type ContextEntry, type StreamMessage } from "../docker/image-build.ts";
import { McpboxError, messageOf } from "../errors.ts";

export const RUNNER_REPO = "mcpbox/code-runner";
const TEMPLATE_FILES = ["Dockerfile", "run.py"] as const;

export interface RunnerBases {
  readonly node: string;
  readonly python: string;
}

/** The template files as a build context. */
export function runnerContext(): ContextEntry[] {
  return TEMPLATE_FILES.map((name) => ({
    name,
    data: Buffer.from(readAsset(`templates/runner/${name}`), "utf8"),
    mode: 0o644,
  }));
}

/** Pure: the tag for these template files and base image ids. */
export function runnerTag(files: readonly ContextEntry[], bases: RunnerBases, baseIds: RunnerBases): string {
  const h = createHash("sha256");
  for (const f of files) h.update(`file\0${f.name}\0`).update(f.data).update("\n");
  h.update(`node\0${bases.node}\0${baseIds.node}\npython\0${bases.python}\0${baseIds.python}\n`);
  return `${RUNNER_REPO}:${h.digest("hex").slice(0, 12)}`;
}

const building = new Map<string, Promise<string>>();

/** The runner image's tag, built first if the engine does not have it (progress lines go to `log`). */
export async function ensureRunnerImage(docker: Docker, bases: RunnerBases, log: (line: string) => void = () => {}): Promise<string> {
  const files = runnerContext();
  const ids = { node: await baseId(docker, bases.node, log), python: await baseId(docker, bases.python, log) };
  const tag = runnerTag(files, bases, ids);
  if (await inspectImage(docker, tag)) return tag;
  let pending = building.get(tag);
  if (!pending) {
    pending = build(docker, tag, files, bases, log).finally(() => building.delete(tag));
    building.set(tag, pending);
  }
  return pending;
}

async function build(docker: Docker, tag: string, files: ContextEntry[], bases: RunnerBases, log: (l: string) => void): Promise<string> {
  log(`building the code runner image ${tag}`);
  let failure: string | undefined;
  const onMessage = (m: StreamMessage) => {
    const error = m.errorDetail?.message ?? m.error;
    if (error) failure ??= String(error);
    else if (typeof m.stream === "string" && m.stream.trim()) log(m.stream.trim());
  };
  await buildImage(
    docker,
    {
      files,
      dockerfile: "Dockerfile",
      tag,
      labels: { "mcpbox.managed-image": "true", "mcpbox.server": "code-runner" },
      buildArgs: { NODE_IMAGE: bases.node, PYTHON_IMAGE: bases.python },
      noCache: false,
      pull: false,
    },
    onMessage,
  );
  if (failure || !(await inspectImage(docker, tag))) {
    throw new McpboxError("failed", `building the code runner image failed: ${failure ?? "no image was produced"}`, {
      hint: `it is built from ${bases.python} and ${bases.node}; set build.baseImages to images you have`,
    });
  }
  return tag;
}

/** The local id of a base image, pulled first when the engine does not have it. */
async function baseId(docker: Docker, ref: string, log: (line: string) => void): Promise<string> {
  let info = await inspectImage(docker, ref);
  if (!info) {
    log(`pulling ${ref}`);
    const pulled = await pullImage(docker, ref).then(() => undefined, (e: unknown) => messageOf(e));
    info = await inspectImage(docker, ref);
    if (!info) {
      throw new McpboxError("environment", `the code runner needs the base image ${ref}, which could not be pulled${pulled ? `: ${pulled}` : ""}`, {
        hint: `docker pull ${ref}, or point build.baseImages at a local image`,
      });
    }
  }
  return info.id;
}
