/** Build events as one human line each: the plain (CI) output and the gateway's stderr. */
import type { BuildEvent } from "./builder.ts";

export function describeEvent(e: BuildEvent, opts: { server?: boolean } = {}): string | undefined {
  // the failure itself is printed once, by whoever reports the error (build's last lines, the gateway's server state)
  if (e.type === "failed") return opts.server === false ? undefined : `${e.server}: failed`;
  const line = describe(e);
  return line === undefined || opts.server === false ? line : `${e.server}: ${line}`;
}

function describe(e: BuildEvent): string | undefined {
  switch (e.type) {
    case "checking":
      return undefined;
    case "cached":
      return `${e.result.tag} is up to date`;
    case "building":
      return `building ${e.tag}`;
    case "step":
      return `step ${e.step.n}/${e.step.total} ${cut(e.step.text)}`;
    case "pushing":
      return `pushing ${e.ref}`;
    case "done":
      return `built ${e.result.tag} in ${e.result.seconds.toFixed(1)} s (${formatSize(e.result.size)}, user ${e.result.user})`;
    case "failed":
      return undefined; // see describeEvent
    case "pulling":
      return undefined; // the first pull-progress line says it
    case "pull-progress":
      return e.line;
    case "pulled":
      return e.result.pulled ? `pulled ${e.result.image} in ${e.result.seconds.toFixed(1)} s` : `${e.result.image} is present`;
  }
}

export function formatSize(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.round(bytes / 1e3)} kB`;
}

const cut = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
