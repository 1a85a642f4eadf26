/** Choosing servers by name on the command line. */
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { McpboxError } from "../errors.ts";

/** The named servers (all when none are named), in config order; an unknown name is a usage error. */
export function pick(config: ResolvedConfig, names: readonly string[]): ResolvedServer[] {
  const unknown = names.filter((n) => !config.servers.some((s) => s.name === n));
  if (unknown.length > 0) {
    throw new McpboxError("usage", `no server named ${unknown.join(", ")} in the config`, {
      hint: `servers: ${config.servers.map((s) => s.name).join(", ") || "(none)"}`,
    });
  }
  return names.length === 0 ? [...config.servers] : config.servers.filter((s) => names.includes(s.name));
}
