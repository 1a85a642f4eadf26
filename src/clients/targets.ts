/**
 * The files `mcpbox config <client> --write` merges into: the client's user-level file, plus the file of each
 * sibling program that is installed (Cline's CLI reads its own copy, not the extension's).
 */
import type { ClientDescriptor, PlatformDirs } from "./types.ts";

export interface Target {
  /** who reads it: the client's title, or the sibling's */
  title: string;
  file: string;
}

export function writeTargets(client: ClientDescriptor, d: PlatformDirs, exists: (path: string) => boolean): Target[] {
  const main = client.userFile(d);
  const targets: Target[] = main ? [{ title: client.title, file: main }] : [];
  for (const s of client.siblings ?? []) {
    const file = s.file(d);
    if (exists(file) || exists(s.installedAt(d))) targets.push({ title: s.title, file });
  }
  return targets;
}
