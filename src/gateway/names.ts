/**
 * Gateway names (SPEC 4.1): `<prefix>__<name>`, always valid for clients (`^[a-zA-Z0-9_-]{1,64}$`). Pure.
 * Characters outside the set become `_`; names over 64 characters are cut and end with a short hash of the full
 * name; two items that would share a name keep them apart with a hash of their server and own name (reported).
 */
import { createHash } from "node:crypto";

export const MAX_NAME_LENGTH = 64;
export const VALID_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const SEPARATOR = "__";

export const shortHash = (s: string, length = 6): string =>
  createHash("sha256").update(s).digest("hex").slice(0, length);

/** The name a client sees for `name` of a server with this prefix (null: no prefix). */
export function exposedName(prefix: string | null, name: string): string {
  const raw = prefix === null ? name : `${prefix}${SEPARATOR}${name}`;
  const clean = raw.replace(/[^a-zA-Z0-9_-]/g, "_") || "_";
  return clean.length <= MAX_NAME_LENGTH ? clean : withHash(clean, raw);
}

/** `base` cut so that `_<hash>` fits in 64 characters. */
function withHash(base: string, hashed: string, length = 6): string {
  return `${base.slice(0, MAX_NAME_LENGTH - length - 1)}_${shortHash(hashed, length)}`;
}

export interface NameRequest {
  server: string;
  prefix: string | null;
  name: string;
}

export interface NamedItem extends NameRequest {
  exposed: string;
}

export interface NameAssignment {
  items: NamedItem[];
  /** one line per clash that had to be resolved with a hash */
  collisions: string[];
}

/** Names for a list of items, in order: the first claimer of a name keeps it, later ones get a hash suffix. */
export function assignNames(requests: readonly NameRequest[], keepRaw = false): NameAssignment {
  const taken = new Map<string, NameRequest>();
  const items: NamedItem[] = [];
  const collisions: string[] = [];
  for (const r of requests) {
    let exposed = keepRaw ? r.name : exposedName(r.prefix, r.name);
    const first = taken.get(exposed);
    if (first) {
      const original = exposed;
      for (let length = 6; taken.has(exposed); length += 2) {
        exposed = withHash(original, `${r.server}\0${r.name}`, length);
      }
      collisions.push(
        `${r.server}: "${r.name}" and ${first.server}: "${first.name}" would both be "${original}"; ` +
          `the first keeps it, the other is "${exposed}"`,
      );
    }
    taken.set(exposed, r);
    items.push({ ...r, exposed });
  }
  return { items, collisions };
}
