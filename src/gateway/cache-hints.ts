/**
 * Cacheable results of the 2026-07-28 revision (`ttlMs`, `cacheScope`) for a list the gateway puts together from
 * several servers: it may be kept no longer than its shortest-lived part, and only privately if any part is private.
 * A part that says nothing (a 2025-11-25 server) is the revision's default: `ttlMs: 0`, `"private"`. Pure.
 */
export interface CacheHint {
  ttlMs?: number | undefined;
  cacheScope?: "public" | "private" | undefined;
}

export function aggregateCacheHint(parts: readonly (CacheHint | undefined)[]): { ttlMs: number; cacheScope: "public" | "private" } {
  let ttlMs = Number.POSITIVE_INFINITY;
  let cacheScope: "public" | "private" = "public";
  for (const p of parts) {
    const ttl = p?.ttlMs;
    ttlMs = Math.min(ttlMs, typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl >= 0 ? ttl : 0);
    if (p?.cacheScope !== "public") cacheScope = "private";
  }
  return parts.length === 0 ? { ttlMs: 0, cacheScope: "private" } : { ttlMs, cacheScope };
}
