/** `--from <client or path>` → the file to read and the client whose shape it has. */
import fs from "node:fs";
import path from "node:path";
import { McpboxError } from "../../errors.ts";
import { findClient, clientNames } from "../registry.ts";
import { platformDirs } from "../paths.ts";
import type { ClientDescriptor, ConfigFormat } from "../types.ts";

export interface Located {
  file: string;
  client: ClientDescriptor | undefined;
  format: ConfigFormat;
}

export interface LocateOptions {
  cwd: string;
  home?: string;
  platform?: NodeJS.Platform;
}

export function locate(from: string, opts: LocateOptions): Located {
  const client = findClient(from);
  if (client) {
    const project = client.projectFile ? path.join(opts.cwd, client.projectFile) : undefined;
    const user = client.userFile(platformDirs({ home: opts.home, platform: opts.platform }));
    const file = [project, user].find((f): f is string => f !== undefined && fs.existsSync(f));
    if (!file) {
      throw new McpboxError("config", `no ${client.title} configuration found${user ? ` at ${user}` : ""}`, {
        hint: `pass the file instead: mcpbox init --from <path>`,
      });
    }
    return { file, client, format: client.format };
  }
  const file = path.resolve(opts.cwd, from.startsWith("~/") && opts.home ? path.join(opts.home, from.slice(2)) : from);
  if (!fs.existsSync(file)) {
    throw new McpboxError("config", `--from ${from}: no such client or file`, {
      hint: `clients: ${clientNames().join(", ")}; or give the path of a client's config file`,
    });
  }
  return { file, client: undefined, format: formatOfPath(file) };
}

function formatOfPath(file: string): ConfigFormat {
  if (file.endsWith(".toml")) return "toml";
  if (/\.ya?ml$/.test(file)) return "yaml";
  return "jsonc";
}
