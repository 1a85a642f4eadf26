/**
 * goose: ~/.config/goose/config.yaml (Windows: %APPDATA%\Block\goose\config\config.yaml), MCP servers are
 * `extensions` keyed by id: { name, type: stdio, cmd, args, enabled, envs, env_keys, timeout }.
 * Docs: https://block.github.io/goose/docs/guides/config-files . goose passes its own environment to extensions;
 * it documents no expansion in `envs`, so secrets come from that environment (-e NAME).
 */
import type { ClientDescriptor, ForeignEntry } from "./types.ts";
import { readCommon, stringMap, strings } from "./_read.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

export const goose: ClientDescriptor = {
  name: "goose",
  title: "goose",
  docs: "https://block.github.io/goose/docs/guides/config-files",
  format: "yaml",
  servers: { path: ["extensions"], shape: "map" },
  ...CLIENT_LOCATIONS.goose,
  render: (e) => ({
    name: e.name,
    type: "stdio",
    cmd: e.command,
    args: e.args,
    enabled: true,
    envs: {},
    env_keys: [],
    timeout: 300,
    description: "MCP servers sandboxed by mcpbox",
  }),
  read: (raw): ForeignEntry => {
    const common = readCommon(raw);
    if (raw.type === "builtin" || raw.type === "platform") return { ...common, remote: `goose ${String(raw.type)}` };
    return { ...common, command: typeof raw.cmd === "string" ? raw.cmd : common.command, args: strings(raw.args), env: stringMap(raw.envs) };
  },
};
