/**
 * Windsurf (Cascade): ~/.codeium/windsurf/mcp_config.json (Windows: %USERPROFILE%\.codeium\windsurf), servers under
 * `mcpServers`; config values interpolate `${env:NAME}`.
 * Docs: https://docs.windsurf.com/windsurf/cascade/mcp
 */
import type { ClientDescriptor } from "./types.ts";
import { bearerHeaders, compact, envMap } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

const envRef = (v: string) => `\${env:${v}}`;

export const windsurf: ClientDescriptor = {
  name: "windsurf",
  title: "Windsurf",
  docs: "https://docs.windsurf.com/windsurf/cascade/mcp",
  format: "json",
  servers: { path: ["mcpServers"], shape: "map" },
  ...CLIENT_LOCATIONS.windsurf,
  envRef,
  expands: /\$\{/,
  render: (e) => compact({ command: e.command, args: e.args, env: envMap(e, envRef) }),
  renderHttp: (e) => ({ serverUrl: e.url, headers: bearerHeaders(e, envRef) }),
};
