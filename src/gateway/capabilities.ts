/** What the gateway advertises at initialize: the union of what its servers offer (SPEC 4.1). Pure. */
import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";

/** Everything the gateway can aggregate; advertised while some server's capabilities are still unknown (lazy). */
export const ALL_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  logging: {},
  completions: {},
} as const satisfies ServerCapabilities;

/**
 * The union of known server capabilities; list_changed is always offered because the gateway itself announces
 * changes (a server restarted, a tool list changed). `undefined` in the list means unknown: everything is offered.
 */
export function unionCapabilities(servers: readonly (ServerCapabilities | undefined)[]): ServerCapabilities {
  if (servers.some((s) => s === undefined)) return structuredClone(ALL_CAPABILITIES);
  const known = servers as ServerCapabilities[];
  const caps: ServerCapabilities = {};
  if (known.some((s) => s.tools)) caps.tools = { listChanged: true };
  if (known.some((s) => s.prompts)) caps.prompts = { listChanged: true };
  if (known.some((s) => s.resources)) caps.resources = { listChanged: true, subscribe: known.some((s) => s.resources?.subscribe === true) };
  if (known.some((s) => s.logging)) caps.logging = {};
  if (known.some((s) => s.completions)) caps.completions = {};
  return caps;
}

/** Server instructions, each under its server's name when there are several. */
export function joinInstructions(entries: readonly { server: string; instructions: string | undefined }[]): string | undefined {
  const present = entries.filter((e) => e.instructions && e.instructions.trim() !== "");
  if (present.length === 0) return undefined;
  if (entries.length === 1) return present[0]!.instructions;
  return present.map((e) => `## ${e.server}\n${e.instructions!.trim()}`).join("\n\n");
}
