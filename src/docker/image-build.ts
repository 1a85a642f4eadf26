/**
 * The engine calls of `mcpbox build`: build from an in-memory context (classic builder, JSON-lines stream), inspect,
 * tag, pull, push and remove images. What the stream means is read by src/images/steps.ts.
 */
import type Docker from "dockerode";
import { messageOf } from "../errors.ts";
import { engineError } from "./engine.ts";

export interface ContextEntry {
  readonly name: string;
  readonly data: Buffer;
  readonly mode: number;
  /** a symlink's target: the entry is sent as a link, as `docker build` sends one */
  readonly link?: string;
}

export interface ImageInfo {
  readonly id: string;
  readonly size: number;
  readonly user: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly tags: readonly string[];
}

export interface BuildRequest {
  readonly files: readonly ContextEntry[];
  readonly dockerfile: string;
  readonly tag: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly buildArgs: Readonly<Record<string, string>>;
  readonly noCache: boolean;
  readonly pull: boolean;
}

/** One decoded line of a build, pull or push stream. */
export type StreamMessage = Record<string, unknown> & { error?: string; errorDetail?: { message?: string } };

export async function inspectImage(docker: Docker, ref: string): Promise<ImageInfo | undefined> {
  try {
    const i = await docker.getImage(ref).inspect();
    return {
      id: i.Id,
      size: i.Size,
      user: i.Config?.User ?? "",
      labels: i.Config?.Labels ?? {},
      tags: i.RepoTags ?? [],
    };
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return undefined;
    throw engineError(e);
  }
}

/** Builds; resolves when the stream ends (a failed step arrives as a message with `error`, not as a rejection). */
export async function buildImage(docker: Docker, req: BuildRequest, onMessage: (m: StreamMessage) => void): Promise<void> {
  const stream = await docker
    .buildImage(await packContext(req.files), {
      t: req.tag,
      dockerfile: req.dockerfile,
      labels: req.labels,
      buildargs: req.buildArgs,
      nocache: req.noCache,
      pull: req.pull ? "true" : undefined,
      rm: true,
      forcerm: true, // no intermediate containers left behind when a step fails
    } as Docker.ImageBuildOptions)
    .catch((e: unknown) => {
      throw engineError(e);
    });
  await followStream(stream, onMessage, false, (m) => dockerDialect(docker, m));
}

const PODMAN_STEP = /^(?:\[\d+\/\d+\] )?STEP (\d+)\/(\d+): (.*)$/s;
const PODMAN_LAYER = /^--> ([0-9a-f]{11,64})$/;
const PODMAN_CACHE = /^--> Using cache [0-9a-f]{64}$/;

/**
 * Podman (buildah) reports a build in words of its own: "[1/2] STEP 3/7: RUN ..." and "--> 1a2b3c4d5e6" (11 hex
 * digits). The build's readers know the classic builder's "Step 3/7 : RUN ..." and " ---> <id>", which is how
 * they find a builder stage to remove: so Podman's lines are said that way, an id completed through the engine.
 */
export async function dockerDialect(docker: Docker, msg: StreamMessage): Promise<StreamMessage> {
  if (typeof msg.stream !== "string") return msg;
  const line = msg.stream.replace(/\r?\n$/, "");
  const step = PODMAN_STEP.exec(line);
  if (step) return { ...msg, stream: `Step ${step[1]}/${step[2]} : ${step[3]}\n` };
  if (PODMAN_CACHE.test(line)) return { ...msg, stream: " ---> Using cache\n" };
  const layer = PODMAN_LAYER.exec(line)?.[1];
  if (!layer) return msg;
  const id = layer.length >= 12 ? layer : await docker.getImage(layer).inspect().then((i) => i.Id.replace(/^sha256:/, ""), () => undefined);
  return id ? { ...msg, stream: ` ---> ${id.slice(0, 12)}\n` } : msg;
}

export async function pullImage(docker: Docker, ref: string, onMessage: (m: StreamMessage) => void = () => {}): Promise<void> {
  const stream = (await docker.pull(ref)) as NodeJS.ReadableStream;
  await followStream(stream, onMessage, true);
}

export async function tagImage(docker: Docker, ref: string, repo: string, tag: string): Promise<void> {
  await docker.getImage(ref).tag({ repo, tag });
}

export async function pushImage(docker: Docker, ref: string, onMessage: (m: StreamMessage) => void = () => {}): Promise<void> {
  // the engine wants an auth header even for an open registry; credentials of `docker login` are not read (yet)
  const stream = await docker.getImage(ref).push({}, undefined, {} as Docker.AuthConfig);
  await followStream(stream, onMessage, true);
}

/** Removes images by id, ignoring those already gone or still used; returns the ids removed. */
export async function removeImages(docker: Docker, ids: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const id of ids) {
    try {
      await docker.getImage(id).remove({ noprune: false });
      removed.push(id);
    } catch {
      // in use by a tagged image or a container, or gone already: not ours to force
    }
  }
  return removed;
}

/** Short ids of the untagged leaf images (`docker images -f dangling=true`). */
export async function danglingImageIds(docker: Docker): Promise<Set<string>> {
  const list = await docker.listImages({ filters: { dangling: ["true"] } });
  return new Set(list.map((i) => i.Id.replace(/^sha256:/, "").slice(0, 12)));
}

async function packContext(files: readonly ContextEntry[]): Promise<NodeJS.ReadableStream> {
  const { default: tar } = await import("tar-stream"); // only a build needs it, not a no-op
  const pack = tar.pack();
  for (const f of files) {
    if (f.link !== undefined) pack.entry({ name: f.name, type: "symlink", linkname: f.link, mode: 0o777, mtime: new Date(0) });
    else pack.entry({ name: f.name, mode: f.mode, size: f.data.length, mtime: new Date(0) }, f.data);
  }
  pack.finalize();
  return pack as unknown as NodeJS.ReadableStream; // a streamx Readable: pipe() is all the engine client uses
}

/**
 * Reads a JSON-lines stream; with `failOnError`, an error message rejects (pull, push). A `translate` step may take
 * its time: messages still reach onMessage in order, and the promise settles after the last one.
 */
function followStream(
  stream: NodeJS.ReadableStream,
  onMessage: (m: StreamMessage) => void,
  failOnError = false,
  translate?: (m: StreamMessage) => Promise<StreamMessage>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = "";
    let failed: string | undefined;
    let queue = Promise.resolve();
    const deliver = (msg: StreamMessage) => {
      if (failOnError && (msg.error ?? msg.errorDetail?.message)) failed ??= String(msg.errorDetail?.message ?? msg.error);
      onMessage(msg);
    };
    const handle = (line: string) => {
      if (!line.trim()) return;
      let msg: StreamMessage;
      try {
        msg = JSON.parse(line) as StreamMessage;
      } catch {
        msg = { stream: `${line}\n` };
      }
      if (!translate) return deliver(msg);
      queue = queue.then(() => translate(msg).catch(() => msg)).then(deliver);
    };
    stream.on("data", (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        handle(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
    stream.on("error", (e: unknown) => reject(new Error(messageOf(e))));
    stream.on("end", () => {
      handle(buf);
      void queue.then(() => (failed ? reject(new Error(failed)) : resolve()), reject);
    });
  });
}
