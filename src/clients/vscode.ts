/**
 * VS Code: mcp.json in the user profile folder or .vscode/mcp.json, servers under `servers` with `type: "stdio"`;
 * JSON with comments; `${env:NAME}` is a predefined variable.
 * Docs: https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
 * VS Code Insiders keeps its own user folder ("Code - Insiders"), so `--write` updates its mcp.json too when it exists.
 */
import type { ClientDescriptor } from "./types.ts";
import { bearerHeaders, compact, envMap } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

const envRef = (v: string) => `\${env:${v}}`;

export const vscode: ClientDescriptor = {
  name: "vscode",
  title: "VS Code",
  docs: "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
  format: "jsonc",
  servers: { path: ["servers"], shape: "map" },
  ...CLIENT_LOCATIONS.vscode,
  envRef,
  expands: /\$\{/,
  render: (e) => compact({ type: "stdio", command: e.command, args: e.args, env: envMap(e, envRef) }),
  renderHttp: (e) => ({ type: "http", url: e.url, headers: bearerHeaders(e, envRef) }),
};
