/** Renders the ambient `declare module "mcpbox"` types of the config from its JSON Schema (build time only). */
import { configJsonSchema } from "./schema.ts";

const HEADER = `// Types of mcpbox's sandbox.config.ts, generated from mcpbox's config schema.
// Written by \`mcpbox init\`; \`mcpbox init --force\` rewrites it. Do not edit.
`;

export async function renderEditorTypes(): Promise<string> {
  const { compile } = await import("json-schema-to-typescript");
  const schema = configJsonSchema();
  delete schema.$schema;
  const body = await compile(schema as Parameters<typeof compile>[0], "UserConfig", {
    bannerComment: "",
    additionalProperties: false,
    strictIndexSignatures: true,
    format: true,
  });
  const indented = body
    .trim()
    .split("\n")
    .map((l) => (l ? `  ${l}` : l))
    .join("\n");
  return `${HEADER}declare module "mcpbox" {
${indented}

  /** What sandbox.config.ts exports: the config, a promise of it, or a function returning either. */
  export type UserConfigExport = UserConfig | Promise<UserConfig> | (() => UserConfig | Promise<UserConfig>);

  /** Returns its argument: it is there so the editor checks the config against the schema. */
  export function defineConfig(config: UserConfigExport): UserConfigExport;
}
`;
}
