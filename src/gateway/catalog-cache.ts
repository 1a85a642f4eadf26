/**
 * The catalog a client sees while the containers start (issue 15): each server's last lists, kept in
 * $MCPBOX_HOME/cache/catalog, answer tools/list at once; the first call to a server waits for it. A cached list is a
 * claim about what a server offers (its names become tools a model calls), so a file is believed only when
 *  - it lies in a folder homeFolder() made and checked (0700, this user's own: src/home.ts), and is itself a regular
 *    file (not a link) of this user that nobody else may read or write (0600): another user or a repository cannot plant it;
 *  - its name is the key of what will run: the server's whole resolved config and the id of the image it will start
 *    (a rebuilt or re-pulled image, or a changed config, is another key: its old lists are never read);
 *  - its lists pass the checks the server's own answer passes: the MCP list item schemas and the caps of limits.ts.
 * A stale entry (a server that changed inside the same image and config) is replaced by the server's own lists once
 * it is up, and clients get list_changed for what differs, as after any relist.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PromptSchema, ResourceSchema, ResourceTemplateSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedServer } from "../config/resolve.ts";
import { stableJson } from "../config/resolve.ts";
import { CAPS } from "./limits.ts";
import type { ServerLists } from "./lists.ts";
import { shortHash } from "./names.ts";

export interface CatalogCache {
  /** The lists kept for this server running this image, when they can be believed; else undefined. */
  read(server: ResolvedServer, imageId: string): ServerLists | undefined;
  /** Keeps the server's own lists (after it started or relisted); a cache that cannot be written only costs a start. */
  write(server: ResolvedServer, imageId: string, lists: ServerLists): void;
}

/** `folder`: a function that makes and checks it, e.g. `() => homeFolder("cache/catalog")`; when it throws, nothing is read or written. */
export function catalogCache(folder: () => string, uid: number | undefined = process.getuid?.()): CatalogCache {
  const file = (s: ResolvedServer, imageId: string) => path.join(folder(), cacheFileName(s, imageId));
  return {
    read(server, imageId) {
      try {
        const target = file(server, imageId);
        const st = fs.lstatSync(target);
        if (!trustedFile(st, uid)) return undefined;
        const text = fs.readFileSync(target, "utf8");
        if (text.length > CAPS.listBytes + 1024) return undefined;
        return checkedLists(JSON.parse(text));
      } catch {
        return undefined;
      }
    },
    write(server, imageId, lists) {
      try {
        const target = file(server, imageId);
        const tmp = `${target}.${randomBytes(4).toString("hex")}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify(lists), { mode: 0o600, flag: "wx" });
        fs.renameSync(tmp, target);
      } catch {
        // only an optimisation
      }
    },
  };
}

/** `<server>-<hash of its resolved config and image id>.json`, the server name cut to what a file name may hold. */
export function cacheFileName(server: ResolvedServer, imageId: string): string {
  return `${server.name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64)}-${shortHash(`${stableJson(server)}\0${imageId}`, 16)}.json`;
}

/** A regular file of this user that group and others can neither read nor write (Windows: no POSIX owner or modes). */
export function trustedFile(st: fs.Stats, uid: number | undefined, platform: NodeJS.Platform = process.platform): boolean {
  if (!st.isFile()) return false; // lstat: a link is not a file
  if (platform === "win32") return true;
  return (uid === undefined || st.uid === uid) && (st.mode & 0o077) === 0;
}

const ITEM = { tools: ToolSchema, prompts: PromptSchema, resources: ResourceSchema, templates: ResourceTemplateSchema } as const;

/** The lists of a cache file, checked as a server's answer is (each item's MCP schema, the caps); undefined when any fails. */
export function checkedLists(raw: unknown): ServerLists | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const out: Partial<Record<keyof ServerLists, unknown[]>> = {};
  let bytes = 0;
  for (const kind of Object.keys(ITEM) as (keyof ServerLists)[]) {
    const items = r[kind] ?? [];
    if (!Array.isArray(items)) return undefined;
    if (items.length > (kind === "templates" ? CAPS.listTemplates : CAPS.listItems)) return undefined;
    // the items as written (the schemas keep unknown keys anyway): the server's own answer compares equal to them
    for (const item of items) if (!ITEM[kind].safeParse(item).success) return undefined;
    bytes += JSON.stringify(items).length;
    if (bytes > CAPS.listBytes) return undefined;
    out[kind] = items;
  }
  return out as ServerLists;
}
