/**
 * Cursor: ~/.cursor/mcp.json (global) or .cursor/mcp.json (project), servers under `mcpServers`; mcp.json expands
 * `${env:NAME}`. Docs: https://cursor.com/docs/mcp (config locations and interpolation).
 */
import type { ClientDescriptor } from "./types.ts";
import { bearerHeaders, compact, envMap } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

const envRef = (v: string) => `\${env:${v}}`;

export const cursor: ClientDescriptor = {
  name: "cursor",
  title: "Cursor",
  docs: "https://cursor.com/docs/mcp",
  format: "json",
  servers: { path: ["mcpServers"], shape: "map" },
  ...CLIENT_LOCATIONS.cursor,
  envRef,
  expands: /\$\{/,
  render: (e) => compact({ command: e.command, args: e.args, env: envMap(e, envRef) }),
  renderHttp: (e) => ({ url: e.url, headers: bearerHeaders(e, envRef) }),
};
