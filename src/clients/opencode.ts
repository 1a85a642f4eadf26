/**
 * opencode: ~/.config/opencode/opencode.json (global) or opencode.json in the project; servers under `mcp` as
 * { type: "local", command: [cmd, ...args], enabled, environment }, and config strings expand `{env:NAME}`.
 * Docs: https://opencode.ai/docs/mcp-servers (and https://opencode.ai/docs/config for {env:...}).
 */
import type { ClientDescriptor, ForeignEntry } from "./types.ts";
import { bearerHeaders, compact, envMap } from "./types.ts";
import { readCommon, stringMap, strings } from "./_read.ts";
import { CLIENT_LOCATIONS } from "../locations/clients.ts";

const envRef = (v: string) => `{env:${v}}`;

export const opencode: ClientDescriptor = {
  name: "opencode",
  title: "opencode",
  docs: "https://opencode.ai/docs/mcp-servers",
  format: "jsonc",
  servers: { path: ["mcp"], shape: "map" },
  // opencode follows XDG on every OS, so Windows too reads %USERPROFILE%\.config\opencode
  ...CLIENT_LOCATIONS.opencode,
  envRef,
  expands: /\{(?:env|file):/,
  render: (e) =>
    compact({ type: "local", command: [e.command, ...e.args], enabled: true, environment: envMap(e, envRef) }),
  renderHttp: (e) => ({ type: "remote", url: e.url, enabled: true, headers: bearerHeaders(e, envRef) }),
  read: (raw): ForeignEntry => {
    const common = readCommon(raw);
    if (raw.type === "remote") return { ...common, remote: common.remote ?? "remote" };
    const [command, ...args] = strings(raw.command);
    return { ...common, command, args, env: stringMap(raw.environment) };
  },
};
