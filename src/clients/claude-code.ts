/**
 * Claude Code: user scope in ~/.claude.json (top-level `mcpServers`), project scope in `.mcp.json`; stdio entries
 * are { type: "stdio", command, args, env }, and env values expand `${VAR}`.
 * Docs: https://docs.anthropic.com/en/docs/claude-code/mcp (scopes, file locations, "Environment variable expansion").
 */
import type { ClientDescriptor } from "./types.ts";
import { bearerHeaders, compact, envMap } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

const envRef = (v: string) => `\${${v}}`;

export const claudeCode: ClientDescriptor = {
  name: "claude-code",
  title: "Claude Code",
  docs: "https://docs.anthropic.com/en/docs/claude-code/mcp",
  format: "json",
  servers: { path: ["mcpServers"], shape: "map" },
  ...CLIENT_LOCATIONS["claude-code"],
  envRef,
  expands: /\$\{/,
  render: (e) => compact({ type: "stdio", command: e.command, args: e.args, env: envMap(e, envRef) }),
  renderHttp: (e) => ({ type: "http", url: e.url, headers: bearerHeaders(e, envRef) }),
};
