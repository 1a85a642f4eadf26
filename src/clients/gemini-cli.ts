/**
 * Gemini CLI: ~/.gemini/settings.json (user) or .gemini/settings.json (project), servers under `mcpServers` as
 * { command, args, env }; string values expand `$VAR` / `${VAR}`, and Gemini CLI withholds credential-looking
 * variables from servers unless env names them, so secrets are named explicitly.
 * Docs: https://geminicli.com/docs/tools/mcp-server/ and https://geminicli.com/docs/cli/configuration
 */
import type { ClientDescriptor } from "./types.ts";
import { bearerHeaders, compact, envMap } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

const envRef = (v: string) => `\${${v}}`;

export const geminiCli: ClientDescriptor = {
  name: "gemini-cli",
  title: "Gemini CLI",
  docs: "https://geminicli.com/docs/tools/mcp-server/",
  format: "jsonc",
  servers: { path: ["mcpServers"], shape: "map" },
  ...CLIENT_LOCATIONS["gemini-cli"],
  envRef,
  expands: /\$[{A-Za-z_]/,
  render: (e) => compact({ command: e.command, args: e.args, env: envMap(e, envRef) }),
  renderHttp: (e) => ({ httpUrl: e.url, headers: bearerHeaders(e, envRef) }),
};
