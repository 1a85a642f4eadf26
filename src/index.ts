/** The "mcpbox" module that sandbox.config.ts imports. */
export { defineConfig } from "./config/define.ts";
export type { UserConfigExport } from "./config/define.ts";
export type { UserConfig, ServerConfig, PolicyConfig } from "./config/schema.ts";
