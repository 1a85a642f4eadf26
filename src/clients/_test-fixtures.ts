/** Test fixtures shared by the client tests: the example config, fixed paths, and golden-file comparison. */
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { UserConfigSchema } from "../config/schema.ts";
import { resolveConfig, type ResolvedServer } from "../config/resolve.ts";

const GOLDEN = path.join(import.meta.dirname, "__golden__");
const UPDATE = process.env.UPDATE_GOLDEN === "1";

export const EXAMPLE = resolveConfig(
  UserConfigSchema.parse({
    servers: {
      files: {
        template: "node",
        package: "@modelcontextprotocol/server-filesystem@2026.8.31",
        args: ["/data"],
        mounts: [{ source: "./reports", target: "/data" }],
      },
      github: {
        image: "ghcr.io/github/github-mcp-server:v1.0.0",
        secrets: { GITHUB_PERSONAL_ACCESS_TOKEN: { env: "GITHUB_TOKEN" } },
        network: "bridge",
        limits: { memory: "1g", cpus: 2 },
      },
    },
  }),
  "/home/dev/project/sandbox.config.ts",
);

export const SELF = ["/opt/mcpbox/bin/mcpbox"];
export const imageOf = (s: ResolvedServer) => (s.source.kind === "image" ? s.source.image : `mcpbox/${s.name}:0123456789ab`);

export const EXT = { json: "json", jsonc: "json", toml: "toml", yaml: "yaml" } as const;

export function golden(name: string, actual: string): void {
  const file = path.join(GOLDEN, name);
  if (UPDATE || !fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, actual);
    if (!UPDATE) throw new Error(`golden file ${name} was missing and has been written: review it and run again`);
  }
  expect(actual, `${name} (UPDATE_GOLDEN=1 rewrites it)`).toBe(fs.readFileSync(file, "utf8"));
}

