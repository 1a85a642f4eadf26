/**
 * What building one server means: its Dockerfile, its build context (files in memory), its base images and its
 * content-addressed tag. Reads the template assets and local files; asks Docker only through `imageId`.
 */
import path from "node:path";
import fs from "node:fs";
import { listAssets, readAsset } from "../assets.ts";
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { McpboxError } from "../errors.ts";
import { dockerignore, folderFiles, textFile, type ContextFile } from "./context.ts";
import { readInside, realSource } from "./guard.ts";
import { contentHash } from "./hash.ts";
import { caFile, dockerfileIn, packageFiles, refuseControl, shownFile } from "./inputs.ts";
import { renderTemplate, shellQuote } from "./render.ts";

/** Bump when the templates' behaviour changes in a way their text does not show. */
export const TEMPLATE_VERSION = "1";

export interface BuildPlan {
  readonly server: string;
  readonly kind: "template" | "build";
  /** mcpbox/<server> */
  readonly repo: string;
  readonly hash: string;
  /** repo:hash */
  readonly tag: string;
  /** the Dockerfile as built (what --print shows) */
  readonly dockerfile: string;
  /** its path inside the context */
  readonly dockerfileName: string;
  /** the whole build context, Dockerfile included */
  readonly files: readonly ContextFile[];
  readonly buildArgs: Readonly<Record<string, string>>;
  /** images named in FROM lines (what --pull refreshes) */
  readonly bases: readonly string[];
  readonly templateVersion: string;
}

export interface PlanOptions {
  /** CA bundle for package managers during the build (--ca-cert, else build.caCerts) */
  readonly caCert?: string | undefined;
  /** local image id of a base image, undefined when absent */
  readonly imageId: (ref: string) => Promise<string | undefined>;
}

/** mcpbox/<server>, made a valid repository name: lowercase, one separator between letters and digits. */
export const imageRepo = (server: string) =>
  `mcpbox/${
    server
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, (sep) => (sep === "." || sep === "_" ? sep : "-"))
      .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "") || "server"
  }`;

export async function planBuild(server: ResolvedServer, config: ResolvedConfig, opts: PlanOptions): Promise<BuildPlan> {
  const src = server.source;
  const where = `${shownFile(config.file)}: servers.${server.name}`;
  if (src.kind === "template") return planTemplate(server.name, src.template, src.package, config, opts, where);
  if (src.kind === "build") return planDockerfile(server.name, src, config.dir, opts, `${where}.build`);
  throw new Error(`server ${server.name} has no image to build (${src.kind})`);
}

async function planTemplate(
  name: string,
  template: "node" | "python",
  spec: string,
  config: ResolvedConfig,
  opts: PlanOptions,
  where: string,
): Promise<BuildPlan> {
  const base = config.build.baseImages[template];
  refuseControl(spec, `${where}.package`);
  refuseControl(base, `${shownFile(config.file)}: build.baseImages.${template}`);
  const pkg = packageFiles(spec, config.dir, `${where}.package`);
  const helpers = [...listAssets(`templates/${template}/`), ...listAssets("templates/common/")]
    .filter((k) => path.posix.basename(k) !== "Dockerfile")
    .map((k) => textFile(`mcpbox/${path.posix.basename(k)}`, readAsset(k)));
  const vars = {
    TEMPLATE_VERSION,
    SERVER: /^[A-Za-z0-9._-]+$/.test(name) ? name : JSON.stringify(name),
    PACKAGE: spec.replace(/\s+/g, " "),
    BASE_IMAGE: base,
    LOCAL: pkg.local,
    NPM_SPEC: pkg.local ? pkg.path : shellQuote(spec),
    PIP_SPEC: pkg.local ? pkg.path : shellQuote(spec),
    INSTALL_SPEC: pkg.local ? "/mcpbox-build/wheels/*.whl" : shellQuote(spec),
  };
  const text = readAsset(`templates/${template}/Dockerfile`);
  const dockerfile = renderTemplate(text, { ...vars, CA_CERT: opts.caCert !== undefined });
  const hashed = [...helpers, ...pkg.files];
  const hash = contentHash({
    kind: "template",
    templateVersion: TEMPLATE_VERSION,
    dockerfile: renderTemplate(text, { ...vars, CA_CERT: false }),
    files: hashed,
    buildArgs: {},
    bases: { [base]: await opts.imageId(base) },
  });
  const ca = opts.caCert === undefined ? [] : [caFile(opts.caCert, shownFile(config.file))];
  const repo = imageRepo(name);
  return {
    server: name,
    kind: "template",
    repo,
    hash,
    tag: `${repo}:${hash}`,
    dockerfile,
    dockerfileName: "Dockerfile",
    files: [textFile("Dockerfile", dockerfile), ...hashed, ...ca],
    buildArgs: {},
    bases: [base],
    templateVersion: TEMPLATE_VERSION,
  };
}

async function planDockerfile(
  name: string,
  src: { readonly context: string; readonly dockerfile: string; readonly args: Readonly<Record<string, string>> },
  configDir: string,
  opts: PlanOptions,
  where: string,
): Promise<BuildPlan> {
  const args = src.args;
  const context = realSource(configDir, src.context, `${where}.context`);
  if (!fs.statSync(context).isDirectory()) throw new McpboxError("config", `${where}.context: ${src.context} is not a folder`);
  const dockerfileName = dockerfileIn(src.context, src.dockerfile, `${where}.dockerfile`);
  const read = readInside(context, dockerfileName, `${where}.dockerfile`);
  if (read === undefined) {
    throw new McpboxError("config", `${where}.dockerfile: ${src.dockerfile} does not exist in ${src.context}`, {
      hint: "dockerfile is relative to the build context",
    });
  }
  const dockerfile = read.data.toString("utf8");
  const ignored = dockerignore(context, `${where}.context`);
  const files = folderFiles(context, "", { where: `${where}.context`, ignored, skipped: new Set() }).filter(
    (f) => f.name !== dockerfileName,
  );
  files.push(textFile(dockerfileName, dockerfile));
  const bases = fromImages(dockerfile);
  const ids: Record<string, string | undefined> = {};
  for (const b of bases) ids[b] = await opts.imageId(b);
  const hash = contentHash({ kind: "build", templateVersion: "", dockerfile, files, buildArgs: args, bases: ids });
  const repo = imageRepo(name);
  return {
    server: name,
    kind: "build",
    repo,
    hash,
    tag: `${repo}:${hash}`,
    dockerfile,
    dockerfileName,
    files,
    buildArgs: args,
    bases,
    templateVersion: "",
  };
}

/** The images a Dockerfile builds FROM (not its own stages, not scratch, not names built from ARGs). */
export function fromImages(dockerfile: string): string[] {
  const stages = new Set<string>();
  const images: string[] = [];
  for (const m of dockerfile.matchAll(/^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/gim)) {
    const ref = m[1]!;
    if (!stages.has(ref.toLowerCase()) && ref !== "scratch" && !ref.includes("$") && !images.includes(ref)) images.push(ref);
    if (m[2]) stages.add(m[2].toLowerCase());
  }
  return images;
}
