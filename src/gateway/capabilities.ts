/** What the gateway advertises at initialize: the union of what its servers offer (SPEC 4.1). Pure. */
import type { ServerCapabilities } from "@modelcontextprotocol/server";

/** Everything the gateway can aggregate; advertised while some server's capabilities are still unknown (lazy). */
export const ALL_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  logging: {},
  completions: {},
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
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
  // the tasks extension: what any server does with tasks (their handles are namespaced per server, tasks.ts)
  const tasks = known.map((s) => s.tasks).filter((t) => t !== undefined);
  if (tasks.length > 0) {
    caps.tasks = {
      ...(tasks.some((t) => t.list) ? { list: {} } : {}),
      ...(tasks.some((t) => t.cancel) ? { cancel: {} } : {}),
      ...(tasks.some((t) => t.requests?.tools?.call) ? { requests: { tools: { call: {} } } } : {}),
    };
  }
  return caps;
}

/**
 * Server instructions, each under its server's name when there are several. A server's text holds no heading of its
 * own: a line it starts with `#` (or a `---`/`===` line that would make the one above a heading) is escaped, so only
 * mcpbox's `## <server>` and `## mcpbox` open a section (a server writing `## github` or `## mcpbox` spoke for another
 * server, or as mcpbox, to the model: boundaries 6 and 7).
 */
export function joinInstructions(entries: readonly { server: string; instructions: string | undefined }[]): string | undefined {
  const present = entries.filter((e) => e.instructions && e.instructions.trim() !== "");
  if (present.length === 0) return undefined;
  if (entries.length === 1) return noHeadings(present[0]!.instructions!);
  return present.map((e) => `## ${e.server}\n${noHeadings(e.instructions!.trim())}`).join("\n\n");
}

/** Markdown's ATX headings (up to three spaces, then `#`) and setext underlines, backslash-escaped. */
const noHeadings = (text: string): string =>
  text.replace(/^( {0,3})(#|=+[ \t]*$|-+[ \t]*$)/gm, (_m, pad: string, mark: string) => `${pad}\\${mark}`);

/**
 * The instructions the client gets at initialize: the servers' own, then (SPEC 4.2) a line for each server that could
 * not start, so the model and the person know why its tools are missing.
 */
export function gatewayInstructions(entries: readonly { server: string; instructions: string | undefined }[], failures: readonly string[]): string | undefined {
  const servers = joinInstructions(entries);
  if (failures.length === 0) return servers;
  const note = [failures.length === 1 ? "mcpbox: a server could not start, so its tools are missing:" : "mcpbox: some servers could not start, so their tools are missing:", ...failures.map((f) => `- ${f}`)].join("\n");
  return servers ? `${servers}\n\n## mcpbox\n${note}` : note;
}
