/**
 * The egress image: the mcpbox binary itself (a Node single executable: no Node.js, no node_modules) plus the
 * libraries `ldd` lists and an /etc/passwd with uid 1000, from scratch, built locally (no registry needed). Its tag
 * is the binary's hash, so a new mcpbox builds it once and an unchanged one finds it at once.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import type { Docker } from "../docker/engine.ts";
import { McpboxError, messageOf } from "../errors.ts";
import { SOCKET_DIR } from "./settings.ts";

export const EGRESS_REPOSITORY = "mcpbox/egress";
export const BINARY_IN_IMAGE = "/usr/local/bin/mcpbox";
const IMAGE_LAYOUT = "3"; // bump when the image's layout changes, so an old tag is not reused

type Entry = { name: string; mode: number; uid?: number; dir?: true; file?: string; data?: string };

/** The image for `binary` (the single executable), built when missing; returns its tag. */
export async function ensureEgressImage(docker: Docker, binary: string): Promise<string> {
  const tag = `${EGRESS_REPOSITORY}:${await fileHash(binary)}-${IMAGE_LAYOUT}`;
  const exists = await docker.getImage(tag).inspect().then(() => true, () => false);
  if (!exists) {
    await build(docker, contextEntries(binary), tag);
    await removeOlder(docker, tag);
  }
  return tag;
}

/** Earlier mcpbox versions' egress images (~115 MB each); one still in use stays. */
async function removeOlder(docker: Docker, keep: string): Promise<void> {
  const images = await docker.listImages({ filters: JSON.stringify({ reference: [EGRESS_REPOSITORY] }) }).catch(() => []);
  for (const image of images) {
    for (const t of image.RepoTags ?? []) if (t !== keep) await docker.getImage(t).remove().catch(() => {});
  }
}

function contextEntries(binary: string): Entry[] {
  const dockerfile = [
    "FROM scratch",
    "COPY rootfs/ /",
    // a fresh named volume mounted there takes this owner: the proxy's sockets, for uid 1000 alone (COPY ignores tar owners)
    `COPY --chown=1000:1000 socket/ ${SOCKET_DIR}/`,
    "USER 1000:1000",
    "LABEL mcpbox.egress=image",
    `ENTRYPOINT ["${BINARY_IN_IMAGE}", "__egress"]`,
  ].join("\n");
  return [
    { name: "Dockerfile", mode: 0o644, data: `${dockerfile}\n` },
    { name: `rootfs${BINARY_IN_IMAGE}`, mode: 0o755, file: binary },
    ...sharedLibraries(binary).map((lib) => ({ name: `rootfs${lib}`, mode: 0o755, file: lib })),
    { name: "rootfs/etc/passwd", mode: 0o644, data: "root:x:0:0:root:/root:/sbin/nologin\nmcpbox:x:1000:1000:mcpbox:/tmp:/sbin/nologin\n" },
    { name: "rootfs/etc/group", mode: 0o644, data: "root:x:0:\nmcpbox:x:1000:\n" },
    { name: "rootfs/etc/nsswitch.conf", mode: 0o644, data: "hosts: files dns\n" },
    // the engine's tmpfs over /tmp takes this folder's mode
    { name: "rootfs/tmp", mode: 0o1777, dir: true },
    { name: "socket", mode: 0o700, dir: true },
  ];
}

/** The libraries `ldd` lists for a binary, with their link targets. */
function sharedLibraries(binary: string): string[] {
  let out: string;
  try {
    out = execFileSync("ldd", [binary], { encoding: "utf8" });
  } catch (e) {
    throw new McpboxError("environment", `cannot list the libraries of ${binary} for the egress image: ${messageOf(e)}`, {
      hint: "ldd (Debian's libc-bin) must be installed",
    });
  }
  const paths = [...out.matchAll(/(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
  return [...new Set(paths.flatMap((p) => [p, fs.realpathSync(p)]))];
}

async function fileHash(file: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of fs.createReadStream(file)) h.update(chunk as Buffer);
  return h.digest("hex").slice(0, 16);
}

/** A tar of the entries, streamed (the binary is ~110 MB), with the modes and owners written explicitly. */
async function packContext(entries: readonly Entry[]): Promise<NodeJS.ReadableStream> {
  const { default: tar } = await import("tar-stream");
  const pack = tar.pack();
  void (async () => {
    for (const e of entries) {
      const header = { name: e.name, mode: e.mode, uid: e.uid ?? 0, gid: e.uid ?? 0, mtime: new Date(0) };
      if (e.dir) pack.entry({ ...header, type: "directory" });
      else if (e.data !== undefined) pack.entry(header, e.data);
      else {
        const size = fs.statSync(e.file!).size;
        await new Promise<void>((resolve, reject) => {
          const sink = pack.entry({ ...header, size }, (err) => (err ? reject(err) : resolve()));
          fs.createReadStream(e.file!).on("error", reject).pipe(sink as unknown as NodeJS.WritableStream);
        });
      }
    }
    pack.finalize();
  })().catch((e: unknown) => pack.destroy(e as Error));
  return pack as unknown as NodeJS.ReadableStream;
}

async function build(docker: Docker, entries: readonly Entry[], tag: string): Promise<void> {
  const stream = await docker.buildImage(await packContext(entries), { t: tag, rm: true, forcerm: true });
  const output = await new Promise<Array<{ error?: string; stream?: string }>>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, out: Array<{ error?: string }>) => (err ? reject(err) : resolve(out))),
  );
  const failure = output.find((o) => o.error);
  if (failure) throw new McpboxError("failed", `building the egress image ${tag} failed: ${failure.error}`);
}
export { build as buildContext, removeOlder, type Entry };
