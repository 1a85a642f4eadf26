import type { UserConfig } from "./schema.ts";

export type UserConfigExport = UserConfig | Promise<UserConfig> | (() => UserConfig | Promise<UserConfig>);

/**
 * Types only: returns its argument unchanged, so an editor checks sandbox.config.ts against the schema.
 */
export function defineConfig(config: UserConfig): UserConfig;
export function defineConfig(config: Promise<UserConfig>): Promise<UserConfig>;
export function defineConfig(config: () => UserConfig | Promise<UserConfig>): () => UserConfig | Promise<UserConfig>;
export function defineConfig(config: UserConfigExport): UserConfigExport {
  return config;
}
