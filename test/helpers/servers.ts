/** ResolvedServer values for tests, made the way the program makes them: parsed by the schema, then resolved. */
import path from "node:path";
import { UserConfigSchema, type ServerConfig } from "../../src/config/schema.ts";
import { resolveConfig, type ResolvedServer } from "../../src/config/resolve.ts";

/** One resolved server named `name` with the given config (default: a plain image server, every policy default). */
export function resolvedServer(name = "srv", config: ServerConfig = { image: "example:latest" }, dir = "/tmp"): ResolvedServer {
  const parsed = UserConfigSchema.parse({ servers: { [name]: config } });
  const server = resolveConfig(parsed, path.join(dir, "sandbox.config.ts")).servers[0];
  if (!server) throw new Error("no server resolved");
  return server;
}
