/**
 * Continue: ~/.continue/config.yaml, `mcpServers` is a list of { name, type: stdio, command, args, env }.
 * Docs: https://docs.continue.dev/customize/deep-dives/mcp . Its `${{ secrets.X }}` reads Continue's own secret
 * store, not the host environment, so secrets come from Continue's environment (-e NAME).
 */
import type { ClientDescriptor } from "./types.ts";
import { compact } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

export const continueDev: ClientDescriptor = {
  name: "continue",
  title: "Continue",
  docs: "https://docs.continue.dev/customize/deep-dives/mcp",
  format: "yaml",
  servers: { path: ["mcpServers"], shape: "list" },
  ...CLIENT_LOCATIONS["continue"],
  skeleton: { name: "Local Config", version: "1.0.0", schema: "v1" },
  expands: /\$\{\{/,
  render: (e) => compact({ name: e.name, type: "stdio", command: e.command, args: e.args }),
};
