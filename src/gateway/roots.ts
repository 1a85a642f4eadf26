/**
 * Roots are translated, not passed through (SPEC 4.1): a client root equal to or inside a mount's host source is
 * sent to that server as the matching path under the mount's target; roots outside every mount are dropped. Pure.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ResolvedMount } from "../config/resolve.ts";

export interface Root {
  uri: string;
  name?: string | undefined;
  [key: string]: unknown;
}

export function translateRoots(roots: readonly Root[], mounts: readonly ResolvedMount[]): Root[] {
  const out: Root[] = [];
  const seen = new Set<string>();
  for (const root of roots) {
    const hostPath = rootPath(root.uri);
    if (hostPath === undefined) continue;
    const target = translatePath(hostPath, mounts);
    if (target === undefined) continue;
    const uri = `file://${encodeURI(target)}`;
    if (seen.has(uri)) continue;
    seen.add(uri);
    out.push({ ...root, uri });
  }
  return out;
}

/** The container path of a host path, through the mount with the longest matching source. */
export function translatePath(hostPath: string, mounts: readonly ResolvedMount[]): string | undefined {
  const p = path.resolve(hostPath);
  const match = mounts
    .filter((m) => p === m.source || p.startsWith(m.source.endsWith(path.sep) ? m.source : m.source + path.sep))
    .sort((a, b) => b.source.length - a.source.length)[0];
  if (!match) return undefined;
  const rel = path.relative(match.source, p).split(path.sep).filter(Boolean);
  return rel.length === 0 ? match.target : path.posix.join(match.target, ...rel);
}

function rootPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
