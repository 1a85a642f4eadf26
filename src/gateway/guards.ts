/** Which tools a server may show and which need a person's yes (SPEC 4.4). Pure. */
import picomatch from "picomatch";
import type { ResolvedServer } from "../config/resolve.ts";

export interface ToolPolicy {
  /** listed and callable */
  visible(tool: string): boolean;
  /** needs approval through elicitation */
  needsApproval(tool: string): boolean;
}

// compiled once per (frozen) server config: tools/call asks on every call
const compiled = new WeakMap<object, ToolPolicy>();

export function toolPolicy(server: Pick<ResolvedServer, "tools" | "approve">): ToolPolicy {
  let policy = compiled.get(server);
  if (!policy) compiled.set(server, (policy = compile(server)));
  return policy;
}

function compile(server: Pick<ResolvedServer, "tools" | "approve">): ToolPolicy {
  const allow = server.tools.allow === undefined ? () => true : matcher(server.tools.allow);
  const deny = matcher(server.tools.deny);
  const approve = matcher(server.approve);
  return {
    visible: (tool) => allow(tool) && !deny(tool),
    needsApproval: (tool) => approve(tool),
  };
}

function matcher(globs: readonly string[]): (s: string) => boolean {
  if (globs.length === 0) return () => false;
  return picomatch([...globs], { dot: true });
}
