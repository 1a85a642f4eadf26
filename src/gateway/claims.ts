/**
 * A name never moves to another server within a session (SPEC 4.1): the first server to be served under a gateway
 * name (tool, prompt) or a raw resource URI keeps it for the gateway's life. A server whose new lists would take a
 * name another server holds has those lists refused (it keeps what it had); the names it asked for stay free.
 */
import type { ResolvedServer } from "../config/resolve.ts";
import { EMPTY_LISTS, type ServerLists } from "./lists.ts";
import { assignNames } from "./names.ts";

type Kind = "tool" | "prompt" | "resource" | "template";

export class NameClaims {
  readonly #owners = new Map<string, string>();

  owner(kind: Kind, name: string): string | undefined {
    return this.#owners.get(`${kind}\0${name}`);
  }

  /** [name, server] of every claim of one kind */
  entries(kind: Kind): [string, string][] {
    const prefix = `${kind}\0`;
    return [...this.#owners].filter(([k]) => k.startsWith(prefix)).map(([k, server]) => [k.slice(prefix.length), server]);
  }

  claim(kind: Kind, name: string, server: string): void {
    const key = `${kind}\0${name}`;
    if (!this.#owners.has(key)) this.#owners.set(key, server);
  }
}

export interface Proposal {
  server: ResolvedServer;
  lists: ServerLists;
}

/** The gateway names a server's lists would be served under (its own clashes are told apart by names.ts). */
export function exposedNames(server: ResolvedServer, lists: ServerLists, transparent: boolean): { kind: Kind; name: string }[] {
  const of = (kind: Kind, items: readonly { name: string }[]) =>
    assignNames(items.map((i) => ({ server: server.name, prefix: server.prefix, name: i.name })), transparent).items.map((a) => ({ kind, name: a.exposed }));
  return [...of("tool", lists.tools), ...of("prompt", lists.prompts)];
}

/**
 * Which lists each server is served with: its proposal, unless a name in it belongs to another server; then what it
 * was served with before (nothing, the first time) and one line saying why.
 */
export function acceptLists(
  proposals: readonly Proposal[],
  accepted: Map<string, ServerLists>,
  claims: NameClaims,
  transparent: boolean,
): { lists: Proposal[]; refusals: string[] } {
  const refusals: string[] = [];
  const lists = proposals.map(({ server, lists: proposed }) => {
    const names = exposedNames(server, proposed, transparent);
    const clash = names.find((n) => {
      const owner = claims.owner(n.kind, n.name);
      return owner !== undefined && owner !== server.name;
    });
    if (clash) {
      const owner = claims.owner(clash.kind, clash.name)!;
      refusals.push(
        `${server.name}: its lists are refused: ${clash.kind} "${clash.name}" already belongs to server ${owner} ` +
          `(names never move between servers; give one of them a prefix)`,
      );
      return { server, lists: accepted.get(server.name) ?? EMPTY_LISTS };
    }
    for (const n of names) claims.claim(n.kind, n.name, server.name);
    accepted.set(server.name, proposed);
    return { server, lists: proposed };
  });
  return { lists, refusals };
}
