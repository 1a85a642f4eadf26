/**
 * Codex: ~/.codex/config.toml (or .codex/config.toml in a trusted project), one `[mcp_servers.<name>]` table with
 * command, args, env and env_vars. Codex hands servers only a small default set of variables; `env_vars` lists
 * host variables to forward by name, which is how secrets reach docker without their values in the file.
 * Docs: https://developers.openai.com/codex/mcp (stdio fields, env_vars).
 */
import type { ClientDescriptor } from "./types.ts";
import { compact } from "./types.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

export const codex: ClientDescriptor = {
  name: "codex",
  title: "Codex",
  docs: "https://developers.openai.com/codex/mcp",
  format: "toml",
  servers: { path: ["mcp_servers"], shape: "map" },
  ...CLIENT_LOCATIONS.codex,
  render: (e) => {
    const forward = Object.keys(e.env);
    return compact({ command: e.command, args: e.args, env_vars: forward.length > 0 ? forward : undefined });
  },
  // Codex reads the token from the variable itself and refuses an inline bearer_token
  renderHttp: (e) => ({ url: e.url, bearer_token_env_var: e.tokenVar }),
};
