/**
 * The last lists of each server, so a lazy server can be listed without starting it: listing is not a use
 * (SPEC 2.2 `startup: "lazy"`). Keyed by the server's whole resolved config; a stale entry only means a
 * list_changed once the server really starts.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ResolvedServer } from "../config/resolve.ts";
import { stableJson } from "../config/resolve.ts";
import type { ServerLists } from "./lists.ts";
import { shortHash } from "./names.ts";
import { pruneStale, touched } from "./cache-prune.ts";

export interface ListCache {
  read(server: ResolvedServer): ServerLists | undefined;
  write(server: ResolvedServer, lists: ServerLists): void;
}

/**
 * `folder` is a path or a function that makes and checks it (homeFolder): a folder that is not the user's own is
 * never read (its lists could name tools the server does not have) nor written.
 */
export function listCache(folder: string | (() => string)): ListCache {
  const dir = typeof folder === "string" ? () => folder : folder;
  const file = (s: ResolvedServer) => path.join(dir(), `${s.name.replace(/[^a-zA-Z0-9_-]/g, "_")}-${shortHash(stableJson(s), 12)}.json`);
  let pruned = false; // the folder's stale files, once per cache (cache-prune.ts)
  return {
    read(server) {
      let fd: number | undefined;
      try {
        fd = fs.openSync(file(server), fs.constants.O_RDONLY);
        const lists = JSON.parse(fs.readFileSync(fd, "utf8")) as ServerLists;
        if (!Array.isArray(lists.tools)) return undefined;
        touched(fd); // listed without a start is a use: the file stays while it is read (cache-prune.ts)
        return lists;
      } catch {
        return undefined;
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    },
    write(server, lists) {
      try {
        if (typeof folder === "string") fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
        const target = file(server);
        const tmp = `${target}.${randomBytes(4).toString("hex")}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify(lists), { mode: 0o600, flag: "wx" });
        fs.renameSync(tmp, target);
        if (!pruned) (pruned = true), pruneStale(path.dirname(target));
      } catch {
        // a cache that cannot be written only costs a start
      }
    },
  };
}
