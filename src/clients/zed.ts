/**
 * Zed: settings.json (JSON with comments) at ~/.config/zed (Linux honours $XDG_CONFIG_HOME; Windows %APPDATA%\Zed),
 * or .zed/settings.json in a project; custom servers under `context_servers` as { command, args, env }.
 * Docs: https://zed.dev/docs/ai/mcp and https://zed.dev/docs/configuring-zed (older Zed also wanted
 * `"source": "custom"`; the current docs do not). Zed documents no variable expansion in env.
 */
import type { ClientDescriptor, ForeignEntry } from "./types.ts";
import { compact } from "./types.ts";
import { readCommon, stringMap, strings } from "./_read.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

export const zed: ClientDescriptor = {
  name: "zed",
  title: "Zed",
  docs: "https://zed.dev/docs/ai/mcp",
  format: "jsonc",
  servers: { path: ["context_servers"], shape: "map" },
  ...CLIENT_LOCATIONS.zed,
  render: (e) => compact({ command: e.command, args: e.args }),
  read: (raw): ForeignEntry => {
    // the older shape nested { path, args, env } under `command`
    const cmd = raw.command;
    if (cmd && typeof cmd === "object" && !Array.isArray(cmd)) {
      const c = cmd as Record<string, unknown>;
      return { command: typeof c.path === "string" ? c.path : undefined, args: strings(c.args), env: stringMap(c.env) };
    }
    return readCommon(raw);
  },
};
