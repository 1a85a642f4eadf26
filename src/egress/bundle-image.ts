/**
 * The egress image when mcpbox has no Linux executable to put in it: run from the npm package (`npm install -g mcpbox`,
 * `npx mcpbox`), or a macOS or Windows executable. Node and the libraries `ldd` lists, taken from the node base image
 * the node template builds on (pulled by the engine for its own architecture, whatever the host's OS), plus mcpbox's
 * program as plain JavaScript (the package's one-file bundle dist/npm/mcpbox.mjs, or the chunks the executable embeds,
 * read from the executable itself), from scratch. The final image is laid out as the executable's (./image.ts): no shell, no
 * package manager, user 1000, the same socket folder and entrypoint role; the container gets the same hardening.
 * Shipping or downloading ~110 MB Linux executables per architecture with the package was the other way; this one
 * needs no second download channel and has the engine pick the architecture.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import { readAsset } from "../assets.ts";
import type { Docker } from "../docker/engine.ts";
import { McpboxError, messageOf } from "../errors.ts";
import { buildContext, EGRESS_REPOSITORY, removeOlder, type Entry } from "./image.ts";
import { SOCKET_DIR } from "./settings.ts";

export const PROGRAM_IN_IMAGE = "/usr/local/lib/mcpbox";
export const NODE_IN_IMAGE = "/usr/local/bin/node";
const LAYOUT = "js-1"; // bump when the layout changes, so an old tag is not reused

/** mcpbox as JavaScript files: the entry's path and each file, from disk or as text, relative to the program folder. */
export interface Program {
  entry: string;
  files: ReadonlyArray<{ path: string; file?: string; text?: string }>;
}

/** The npm package's program: its one bundle file. */
export const bundleProgram = (bundle: string): Program => ({ entry: "mcpbox.mjs", files: [{ path: "mcpbox.mjs", file: bundle }] });

/** The egress image for `program`, built when missing on `base` (the node template's base image). */
export async function ensureProgramEgressImage(docker: Docker, program: Program, base: string): Promise<string> {
  const rootfsScript = readAsset("templates/common/rootfs.sh");
  const entries = programContextEntries(program, base, rootfsScript);
  const tag = `${EGRESS_REPOSITORY}:${contextHash(entries)}-${LAYOUT}`;
  if (await docker.getImage(tag).inspect().then(() => true, () => false)) return tag;
  try {
    await buildContext(docker, entries, tag);
  } catch (e) {
    throw new McpboxError("failed", `the egress image of the npm package (on ${base}) could not be built: ${messageOf(e)}`, {
      hint: `the engine pulls ${base} for it: check that \`docker pull ${base}\` works (network, registry mirror), or use the mcpbox executable for this platform`,
      cause: e,
    });
  }
  await removeOlder(docker, tag);
  return tag;
}

/** The build context: a builder stage on the node base that gathers Node and its libraries, then scratch. */
export function programContextEntries(program: Program, base: string, rootfsScript: string): Entry[] {
  const dockerfile = [
    `FROM ${base} AS node`,
    "COPY rootfs.sh /mcpbox-build/rootfs.sh",
    // node and every library ldd lists, at their paths, into /rootfs (templates/common/rootfs.sh, as the node template)
    `RUN sh /mcpbox-build/rootfs.sh /rootfs "$(command -v node)" && mkdir -p /rootfs/usr/local/bin \\`,
    ` && { [ -e /rootfs${NODE_IN_IMAGE} ] || ln -s "$(command -v node)" /rootfs${NODE_IN_IMAGE}; }`,
    "FROM scratch",
    "COPY --from=node /rootfs/ /",
    "COPY rootfs/ /",
    // a fresh named volume mounted there takes this owner: the proxy's sockets, for uid 1000 alone
    `COPY --chown=1000:1000 socket/ ${SOCKET_DIR}/`,
    "USER 1000:1000",
    "LABEL mcpbox.egress=image",
    `ENTRYPOINT ["${NODE_IN_IMAGE}", "${PROGRAM_IN_IMAGE}/${program.entry}", "__egress"]`,
  ].join("\n");
  return [
    { name: "Dockerfile", mode: 0o644, data: `${dockerfile}\n` },
    { name: "rootfs.sh", mode: 0o644, data: rootfsScript },
    ...program.files.map((f): Entry => ({ name: `rootfs${PROGRAM_IN_IMAGE}/${f.path}`, mode: 0o644, ...(f.file !== undefined ? { file: f.file } : { data: f.text ?? "" }) })),
    { name: "rootfs/etc/nsswitch.conf", mode: 0o644, data: "hosts: files dns\n" },
    { name: "socket", mode: 0o700, dir: true },
  ];
}

/** What the image is made of: every entry of the context, files' bytes included (the base's name is in the Dockerfile). */
function contextHash(entries: readonly Entry[]): string {
  const h = createHash("sha256");
  for (const e of entries) h.update(`\0${e.name}\0${e.mode}\0`).update(e.file !== undefined ? fs.readFileSync(e.file) : Buffer.from(e.data ?? ""));
  return h.digest("hex").slice(0, 16);
}
