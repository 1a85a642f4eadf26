/**
 * Secrets are resolved when serving (SPEC 4.5), from the host environment or a file. A missing one is an error
 * that names the server and the variable or file, never a value.
 */
import fs from "node:fs";
import { McpboxError } from "../errors.ts";
import type { ResolvedServer } from "../config/resolve.ts";

export type SecretEnv = Readonly<Record<string, string>>;

export function resolveSecrets(
  server: Pick<ResolvedServer, "name" | "secrets">,
  env: NodeJS.ProcessEnv = process.env,
  readFile: (file: string) => string = (f) => fs.readFileSync(f, "utf8"),
): SecretEnv {
  const out: Record<string, string> = {};
  for (const [key, secret] of Object.entries(server.secrets)) {
    if ("env" in secret) {
      const value = env[secret.env];
      if (value === undefined || value === "") {
        throw new McpboxError("config", `server ${server.name}: secret ${key} needs the environment variable ${secret.env}, which is not set`, {
          hint: `export ${secret.env}=... in the environment that starts mcpbox (your MCP client's config can set it)`,
        });
      }
      out[key] = value;
    } else {
      let value: string;
      try {
        value = readFile(secret.file).trim();
      } catch (e) {
        const code = (e as { code?: string }).code ?? "unreadable";
        throw new McpboxError("config", `server ${server.name}: secret ${key} cannot be read from ${secret.file} (${code})`, {
          hint: "create the file or fix secrets." + key + ".file in the config",
        });
      }
      out[key] = value;
    }
  }
  return out;
}
