/**
 * Cline (VS Code extension): cline_mcp_settings.json in VS Code's globalStorage for saoudrizwan.claude-dev,
 * servers under `mcpServers` as { command, args, env, disabled }.
 * Docs: https://docs.cline.bot/mcp/configuring-mcp-servers (path as Cline's "Configure MCP Servers" opens it).
 * The Cline CLI reads its own copy, ~/.cline/data/settings/cline_mcp_settings.json (same shape; docs:
 * https://docs.cline.bot/cline-cli/configuration), so `--write` updates that one too once ~/.cline exists.
 * Cline documents no variable expansion, so secrets come from its environment (-e NAME).
 */
import type { ClientDescriptor } from "./types.ts";
import { compact } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

export const cline: ClientDescriptor = {
  name: "cline",
  title: "Cline",
  docs: "https://docs.cline.bot/mcp/configuring-mcp-servers",
  format: "json",
  servers: { path: ["mcpServers"], shape: "map" },
  ...CLIENT_LOCATIONS.cline,
  render: (e) => compact({ command: e.command, args: e.args, disabled: false }),
};
