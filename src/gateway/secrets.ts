/**
 * Secrets are resolved when serving (SPEC 4.5), from the host environment or a file. A missing one fails its server
 * only, with an error that names every missing variable or file and how to provide it, never a value.
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
  const problems: string[] = [];
  const fixes: string[] = [];
  for (const [key, secret] of Object.entries(server.secrets)) {
    if ("env" in secret) {
      const value = env[secret.env];
      if (value === undefined || value === "") {
        problems.push(`secret ${key} needs the environment variable ${secret.env}, which is not set`);
        // Claude Desktop and others start mcpbox with almost no environment: the client's own config must pass it
        fixes.push(`set ${secret.env} where mcpbox is started (the "env" of mcpbox in your MCP client's config), or use secrets.${key}.file`);
      } else out[key] = value;
    } else {
      try {
        out[key] = readFile(secret.file).trim();
      } catch (e) {
        const code = (e as { code?: string }).code ?? "unreadable";
        problems.push(`secret ${key} cannot be read from ${secret.file} (${code})`);
        fixes.push(`create the file or fix secrets.${key}.file in the config`);
      }
    }
  }
  if (problems.length > 0) throw new McpboxError("config", problems.join("; "), { hint: fixes.join("; ") });
  return out;
}
