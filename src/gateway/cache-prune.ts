/**
 * The gateway's caches under $MCPBOX_HOME/cache (catalog-cache.ts, list-cache.ts) hold one file per server config and
 * image: each rebuild, re-pull or config change leaves the old one behind. A file neither read nor written for
 * 30 days (a read refreshes its time) is removed, and a temp file of a write that never finished after an hour: once
 * per gateway and cache, after its first write, in a folder its owner made and checked (homeFolder). Only files and
 * links are removed (a link itself, never what it names); a cache that cannot be pruned only takes room.
 */
import fs from "node:fs";
import path from "node:path";

const HOUR = 3600 * 1000;
const STALE_MS = 30 * 24 * HOUR;

export function pruneStale(dir: string, now = Date.now()): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    try {
      const p = path.join(dir, name);
      const st = fs.lstatSync(p);
      if (!st.isFile() && !st.isSymbolicLink()) continue;
      if (now - st.mtimeMs > (name.endsWith(".tmp") ? HOUR : STALE_MS)) fs.unlinkSync(p);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

/** Marks a cache file as used now (what pruneStale goes by); a file that cannot be touched is only pruned sooner. */
export function touched(fd: number, now = new Date()): void {
  try {
    fs.futimesSync(fd, now, now);
  } catch {
    // only housekeeping
  }
}
