/**
 * Claude Desktop: `claude_desktop_config.json`, servers under `mcpServers` as { command, args, env }.
 * Docs: https://modelcontextprotocol.io/quickstart/user (file locations on macOS and Windows, as quoted in
 * https://raw.githubusercontent.com/confluentinc/mcp-confluent/master/docs/configuring-claude-desktop.md).
 * There is no official Linux build; community builds read ~/.config/Claude/claude_desktop_config.json.
 * Claude Desktop does not expand variables in env and starts servers with only a minimal environment (HOME, PATH...;
 * the quickstart's troubleshooting says so), so an env secret cannot reach mcpbox through it: file secrets can.
 */
import type { ClientDescriptor } from "./types.ts";
import { compact } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

export const claudeDesktop: ClientDescriptor = {
  name: "claude-desktop",
  title: "Claude Desktop",
  docs: "https://modelcontextprotocol.io/quickstart/user",
  format: "json",
  servers: { path: ["mcpServers"], shape: "map" },
  ...CLIENT_LOCATIONS["claude-desktop"],
  serverEnv: "minimal",
  render: (e) => compact({ command: e.command, args: e.args }),
};
