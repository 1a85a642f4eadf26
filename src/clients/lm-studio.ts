/**
 * LM Studio: ~/.lmstudio/mcp.json (Windows: %USERPROFILE%\.lmstudio\mcp.json), "Cursor's mcp.json notation":
 * servers under `mcpServers` as { command, args, env }. No documented variable expansion.
 * Docs: https://lmstudio.ai/docs/app/mcp
 */
import type { ClientDescriptor } from "./types.ts";
import { compact } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

export const lmStudio: ClientDescriptor = {
  name: "lm-studio",
  title: "LM Studio",
  docs: "https://lmstudio.ai/docs/app/mcp",
  format: "json",
  servers: { path: ["mcpServers"], shape: "map" },
  ...CLIENT_LOCATIONS["lm-studio"],
  render: (e) => compact({ command: e.command, args: e.args }),
};
