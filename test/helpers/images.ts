/**
 * Test images built offline from what is on this machine (no registry is reachable):
 *   mcpbox-test/everything:latest   runs @modelcontextprotocol/server-everything over stdio, user 1000
 *   mcpbox-test/filesystem:latest   runs @modelcontextprotocol/server-filesystem (allowed folders as Cmd), user 1000
 * Base: the local `node:24-bookworm-slim` when it exists, otherwise `mcpbox-test/node-min:latest` (a Node binary,
 * the libraries ldd lists and an /etc/passwd with uid 1000). Idempotent: an image whose inputs key matches is kept.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { engine, type Docker } from "../../src/docker/engine.ts";
import { imageExists } from "../../src/docker/images.ts";

export const REPO = path.resolve(import.meta.dirname, "../..");
const NODE_MODULES = path.join(REPO, "node_modules");
export const NODE_BASE = "node:24-bookworm-slim";
export const MIN_BASE = "mcpbox-test/node-min:latest";
const KEY_LABEL = "mcpbox.test.key";

interface ServerImage {
  pkg: string;
  entrypoint: string[];
}

export const TEST_IMAGES: Record<string, ServerImage> = {
  "mcpbox-test/everything:latest": {
    pkg: "@modelcontextprotocol/server-everything",
    entrypoint: ["node", "/app/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
  },
  "mcpbox-test/filesystem:latest": {
    pkg: "@modelcontextprotocol/server-filesystem",
    entrypoint: ["node", "/app/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"],
  },
};

/** Builds one of TEST_IMAGES (or the node base) unless it exists with the same inputs; returns its name. */
export async function ensureTestImage(name: string, docker: Docker = engine()): Promise<string> {
  if (name === MIN_BASE) return ensureMinimalNodeImage(docker);
  const spec = TEST_IMAGES[name];
  if (!spec) throw new Error(`unknown test image ${name}; known: ${Object.keys(TEST_IMAGES).join(", ")}`);
  const base = await nodeBaseImage(docker);
  const dirs = packageClosure(spec.pkg);
  const dockerfile = [
    `FROM ${base}`,
    "COPY app /app",
    "WORKDIR /app",
    "USER 1000:1000",
    // not a CI base image itself, whatever the base says
    "LABEL mcpbox.test=true mcpbox.ci-base=false",
    `ENTRYPOINT ${JSON.stringify(spec.entrypoint)}`,
  ];
  const baseId = (await docker.getImage(base).inspect()).Id;
  const key = hash([baseId, ...dockerfile, ...dirs.map(versionOf)]);
  if ((await labelOf(docker, name, KEY_LABEL)) === key) return name;
  const ctx = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-test-image-"));
  try {
    for (const rel of dirs) copyPackage(path.join(NODE_MODULES, rel), path.join(ctx, "app/node_modules", rel));
    fs.writeFileSync(path.join(ctx, "Dockerfile"), [...dockerfile, `LABEL ${KEY_LABEL}=${key}`].join("\n") + "\n");
    await replaceImage(docker, name, () => buildImage(docker, ctx, ["Dockerfile", "app"], name));
  } finally {
    fs.rmSync(ctx, { recursive: true, force: true });
  }
  return name;
}

/** The base the test images start from: the CI base image when it exists, else the minimal one. */
export async function nodeBaseImage(docker: Docker = engine()): Promise<string> {
  if (await imageExists(docker, NODE_BASE)) return NODE_BASE;
  return ensureMinimalNodeImage(docker);
}

/** A distroless-like Node image: the project's Node binary and its libraries, uid 1000 in /etc/passwd (~1 s). */
export async function ensureMinimalNodeImage(docker: Docker = engine()): Promise<string> {
  const node = fs.realpathSync(path.join(NODE_MODULES, "node/bin/node"));
  const libs = sharedLibraries(node);
  const key = hash([fs.statSync(node).size.toString(), String(fs.statSync(node).mtimeMs), ...libs]);
  if ((await labelOf(docker, MIN_BASE, KEY_LABEL)) === key) return MIN_BASE;
  const ctx = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-test-base-"));
  try {
    const root = path.join(ctx, "rootfs");
    copyFile(node, path.join(root, "usr/local/bin/node"));
    for (const lib of libs) copyFile(lib, path.join(root, lib));
    fs.mkdirSync(path.join(root, "etc"), { recursive: true });
    fs.mkdirSync(path.join(root, "tmp"), { mode: 0o1777 });
    fs.writeFileSync(path.join(root, "etc/passwd"), "root:x:0:0:root:/root:/sbin/nologin\nnode:x:1000:1000:node:/home/node:/sbin/nologin\n");
    fs.writeFileSync(path.join(root, "etc/group"), "root:x:0:\nnode:x:1000:\n");
    fs.mkdirSync(path.join(root, "home/node"), { recursive: true });
    const dockerfile = ["FROM scratch", "COPY rootfs/ /", 'ENV PATH=/usr/local/bin:/usr/bin:/bin', `LABEL mcpbox.test=true ${KEY_LABEL}=${key}`, 'CMD ["node"]'];
    fs.writeFileSync(path.join(ctx, "Dockerfile"), dockerfile.join("\n") + "\n");
    await replaceImage(docker, MIN_BASE, () => buildImage(docker, ctx, ["Dockerfile", "rootfs"], MIN_BASE));
  } finally {
    fs.rmSync(ctx, { recursive: true, force: true });
  }
  return MIN_BASE;
}

/** Absolute paths of the libraries `ldd` lists for a binary (with their symlink targets). */
function sharedLibraries(binary: string): string[] {
  const out = execFileSync("ldd", [binary], { encoding: "utf8" });
  const paths = [...out.matchAll(/(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
  return [...new Set(paths.flatMap((p) => [p, fs.realpathSync(p)]))];
}

/** The folders (relative to node_modules) of a package and everything it depends on, resolved as Node would. */
export function packageClosure(name: string): string[] {
  const seen = new Set<string>();
  const visit = (pkgName: string, fromRel: string) => {
    const rel = resolvePackage(pkgName, fromRel);
    if (rel === undefined || seen.has(rel)) return;
    seen.add(rel);
    const manifest = JSON.parse(fs.readFileSync(path.join(NODE_MODULES, rel, "package.json"), "utf8"));
    const deps = { ...manifest.dependencies, ...manifest.optionalDependencies };
    for (const dep of Object.keys(deps)) visit(dep, rel);
  };
  visit(name, "");
  return [...seen].sort();
}

/** Node's lookup: `<from>/node_modules/<name>`, then each enclosing node_modules up to the top. */
function resolvePackage(name: string, fromRel: string): string | undefined {
  let dir = fromRel;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : name;
    if (fs.existsSync(path.join(NODE_MODULES, candidate, "package.json"))) return candidate;
    if (!dir) return undefined; // an optional dependency that is not installed
    const idx = dir.lastIndexOf("/node_modules/");
    dir = idx < 0 ? "" : dir.slice(0, idx);
  }
}

function copyPackage(from: string, to: string): void {
  fs.cpSync(from, to, {
    recursive: true,
    dereference: true,
    filter: (src) => path.relative(from, src).split(path.sep)[0] !== "node_modules",
  });
}

function copyFile(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
}

function versionOf(rel: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(NODE_MODULES, rel, "package.json"), "utf8"));
  return `${rel}@${manifest.version}`;
}

function hash(parts: string[]): string {
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
}

async function labelOf(docker: Docker, image: string, label: string): Promise<string | undefined> {
  if (!(await imageExists(docker, image))) return undefined;
  return (await docker.getImage(image).inspect()).Config?.Labels?.[label];
}

/** Builds a new version of a tag and removes the version it replaced (when nothing uses it any more). */
async function replaceImage(docker: Docker, name: string, build: () => Promise<void>): Promise<void> {
  const old = (await imageExists(docker, name)) ? (await docker.getImage(name).inspect()).Id : undefined;
  await build();
  const now = (await docker.getImage(name).inspect()).Id;
  if (old && old !== now) await docker.getImage(old).remove().catch(() => {});
}

/** Builds with the classic builder (no buildx here) and fails with the builder's own error text. */
async function buildImage(docker: Docker, context: string, src: string[], tag: string): Promise<void> {
  const stream = await docker.buildImage({ context, src }, { t: tag, rm: true, forcerm: true });
  const output = await new Promise<Array<{ error?: string; stream?: string }>>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, out: Array<{ error?: string }>) => (err ? reject(err) : resolve(out))),
  );
  const failure = output.find((o) => o.error);
  if (failure) throw new Error(`docker build ${tag} failed: ${failure.error}\n${output.map((o) => o.stream ?? "").join("")}`);
}
