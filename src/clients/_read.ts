/** Reading a server entry of the common `{ command, args, env }` shape back into a ForeignEntry. */
import type { ForeignEntry } from "./types.ts";

const REMOTE_TYPES = new Set(["http", "sse", "streamable-http", "streamableHttp", "remote"]);

export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);

export function stringMap(v: unknown): Record<string, string> {
  if (!v || typeof v !== "object" || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === "string" ? x : String(x)]));
}

export function readCommon(raw: Record<string, unknown>): ForeignEntry {
  const url = [raw.url, raw.serverUrl, raw.httpUrl, raw.uri].find((u) => typeof u === "string") as string | undefined;
  const type = typeof raw.type === "string" ? raw.type : undefined;
  const remote = url ?? (type && REMOTE_TYPES.has(type) ? type : undefined);
  return {
    command: typeof raw.command === "string" ? raw.command : undefined,
    args: strings(raw.args),
    env: stringMap(raw.env),
    remote,
    disabled: raw.disabled === true || raw.enabled === false,
  };
}
