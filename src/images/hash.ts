/**
 * The content hash in an image's tag (`mcpbox/<server>:<hash>`), pure: it covers the Dockerfile text (template text,
 * template version, package spec and base image names are all in it), every context file and link, the build args and the
 * local ids of the base images. The CA bundle is left out: it changes how the build downloads, not what it builds.
 */
import { createHash } from "node:crypto";
import type { ContextFile } from "./context.ts";

export interface HashInputs {
  readonly kind: "template" | "build";
  readonly templateVersion: string;
  readonly dockerfile: string;
  readonly files: readonly ContextFile[];
  readonly buildArgs: Readonly<Record<string, string>>;
  /** base image name → its local id, or undefined when it is not present locally */
  readonly bases: Readonly<Record<string, string | undefined>>;
}

export const HASH_LENGTH = 12;

export function contentHash(inputs: HashInputs): string {
  const h = createHash("sha256");
  const field = (...parts: string[]) => h.update(parts.join("\0") + "\n");
  field("kind", inputs.kind, inputs.templateVersion);
  field("dockerfile", inputs.dockerfile);
  for (const f of [...inputs.files].sort(byName)) {
    if (f.link !== undefined) field("link", f.name, f.link);
    else field("file", f.name, String(f.mode), sha256(f.data));
  }
  for (const k of Object.keys(inputs.buildArgs).sort()) field("arg", k, inputs.buildArgs[k]!);
  for (const k of Object.keys(inputs.bases).sort()) field("base", k, inputs.bases[k] ?? k);
  return h.digest("hex").slice(0, HASH_LENGTH);
}

export const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

const byName = (a: ContextFile, b: ContextFile) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
