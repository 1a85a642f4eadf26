/**
 * What building one server means: its Dockerfile, its build context (files in memory), its base images and its
 * content-addressed tag. Reads the template assets and local files; asks Docker only through `imageId`.
 */
import path from "node:path";
import fs from "node:fs";
import { listAssets, readAsset } from "../assets.ts";
import { isLocalPackage } from "../config/checks.ts";
import { hostPath, type ResolvedConfig, type ResolvedServer } from "../config/resolve.ts";
import { McpboxError } from "../errors.ts";
import { dockerignore, fileAt, folderFiles, textFile, type ContextFile } from "./context.ts";
import { contentHash } from "./hash.ts";
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
  if (src.kind === "template") return planTemplate(server.name, src.template, src.package, config, opts);
  if (src.kind === "build") return planDockerfile(server.name, src.context, src.dockerfile, src.args, opts);
  throw new Error(`server ${server.name} has no image to build (${src.kind})`);
}

async function planTemplate(
  name: string,
  template: "node" | "python",
  spec: string,
  config: ResolvedConfig,
  opts: PlanOptions,
): Promise<BuildPlan> {
  const base = config.build.baseImages[template];
  const pkg = packageFiles(spec, config.dir);
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
  const ca = opts.caCert === undefined ? [] : [caFile(opts.caCert)];
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

/** A local folder or archive goes into the context under package/; a registry spec adds nothing. */
function packageFiles(spec: string, dir: string): { local: boolean; path: string; files: ContextFile[] } {
  if (!isLocalPackage(spec)) return { local: false, path: "", files: [] };
  const abs = hostPath(dir, spec);
  if (!fs.existsSync(abs)) {
    throw new McpboxError("config", `package ${spec} does not exist (${abs})`, {
      hint: "a local package is a folder or archive path relative to the config file",
    });
  }
  if (fs.statSync(abs).isDirectory()) return { local: true, path: "/mcpbox-build/package", files: folderFiles(abs, "package/") };
  const file = path.basename(abs);
  return { local: true, path: `/mcpbox-build/package/${shellQuote(file)}`, files: [fileAt(`package/${file}`, abs)] };
}

function caFile(file: string): ContextFile {
  try {
    return fileAt("mcpbox/ca.crt", file);
  } catch (e) {
    throw new McpboxError("config", `cannot read the CA bundle ${file}`, { cause: e, hint: "check build.caCerts or --ca-cert" });
  }
}

async function planDockerfile(
  name: string,
  context: string,
  dockerfileRel: string,
  args: Readonly<Record<string, string>>,
  opts: PlanOptions,
): Promise<BuildPlan> {
  const dockerfilePath = path.resolve(context, dockerfileRel);
  const inside = path.relative(context, dockerfilePath);
  // a Dockerfile outside the context travels with it under a name of its own, as `docker build -f` does
  const dockerfileName = inside.startsWith("..") ? ".mcpbox.Dockerfile" : inside.split(path.sep).join("/");
  const dockerfile = fs.readFileSync(dockerfilePath, "utf8");
  const files = folderFiles(context, "", dockerignore(context), new Set()).filter((f) => f.name !== dockerfileName);
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
