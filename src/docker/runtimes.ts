/**
 * The runtimes the engine offers (`/info` Runtimes) and which engine it is (`/version`: Docker or Podman), so a server
 * with `runtime: "gvisor"` fails before its container is made, once, with the fix, instead of as an engine error.
 */
import type Docker from "dockerode";
import type { ResolvedServer } from "../config/resolve.ts";
import { missingRuntimeProblem } from "../config/_runtime-checks.ts";
import { McpboxError, messageOf } from "../errors.ts";

export interface EngineRuntimes {
  /** the runtime names the engine lists; undefined when it did not say */
  readonly names: readonly string[] | undefined;
  readonly defaultRuntime: string | undefined;
  /** each runtime's arguments as registered (Docker's runtimeArgs), e.g. runsc's --network=none */
  readonly args: Readonly<Record<string, readonly string[]>>;
}

interface InfoRuntimes {
  Runtimes?: Record<string, { path?: string; runtimeArgs?: string[] } | undefined>;
  DefaultRuntime?: string;
}

/** Reads the engine's runtimes from /info; throws what the engine said when it cannot be asked. */
export async function engineRuntimes(docker: Docker): Promise<EngineRuntimes> {
  const info = (await docker.info()) as InfoRuntimes;
  const runtimes = info.Runtimes && typeof info.Runtimes === "object" ? info.Runtimes : undefined;
  return {
    names: runtimes ? Object.keys(runtimes).sort() : undefined,
    defaultRuntime: typeof info.DefaultRuntime === "string" ? info.DefaultRuntime : undefined,
    args: Object.fromEntries(
      Object.entries(runtimes ?? {}).map(([k, v]) => [k, Array.isArray(v?.runtimeArgs) ? v.runtimeArgs.map(String) : []]),
    ),
  };
}

export type EngineKind = "Docker" | "Podman";

export interface EngineIdentity {
  readonly kind: EngineKind;
  /** what the engine calls itself, e.g. "Podman Engine" or "Docker Engine - Community" */
  readonly name: string;
}

interface VersionNames {
  Platform?: { Name?: string };
  Components?: { Name?: string }[];
}

/** Docker or Podman, from /version's Components and Platform names (Podman says "Podman Engine"). */
export function identifyEngine(version: VersionNames): EngineIdentity {
  const names = [version.Platform?.Name, ...(version.Components ?? []).map((c) => c?.Name)].filter(
    (n): n is string => typeof n === "string" && n.length > 0,
  );
  const podman = names.find((n) => /podman/i.test(n));
  if (podman) return { kind: "Podman", name: podman };
  return { kind: "Docker", name: names.find((n) => /docker/i.test(n)) ?? "Docker Engine" };
}

/** An engine error that says the runtime asked for does not exist (Docker: "Unknown runtime specified", Podman: not found). */
export function isUnknownRuntimeError(e: unknown): boolean {
  return /unknown runtime|runtime .{0,80}not found|unable to find (an )?(oci )?runtime|no such runtime/i.test(messageOf(e));
}

/** The error of a server whose runtime the engine lacks: the message carries the fix (a server's state shows only it). */
export function missingRuntimeError(
  server: Pick<ResolvedServer, "name" | "runtime" | "engineRuntime">,
  offered: readonly string[] | undefined,
  cause?: unknown,
): McpboxError {
  const p = missingRuntimeProblem(server, offered);
  return new McpboxError("environment", `${p.message}; fix: ${p.hint}`, cause === undefined ? {} : { cause });
}

/**
 * A check per server before its container is made: the engine's runtimes are asked once per gateway; a server whose
 * engine runtime is not among them is refused. An engine that does not list its runtimes is not second-guessed here
 * (its create error is mapped by `runtimeCreateError`).
 */
export function runtimeGuard(docker: Docker): (server: ResolvedServer) => Promise<void> {
  let asked: Promise<EngineRuntimes | undefined> | undefined;
  return async (server) => {
    if (server.engineRuntime === undefined) return;
    asked ??= engineRuntimes(docker).catch(() => undefined);
    const names = (await asked)?.names;
    if (names && !names.includes(server.engineRuntime)) {
      asked = undefined; // registered meanwhile? the next start asks again
      throw missingRuntimeError(server, names);
    }
  };
}

/** The engine's refusal of an unknown runtime as the same clear error; anything else unchanged. */
export function runtimeCreateError(server: Pick<ResolvedServer, "name" | "runtime" | "engineRuntime">, e: unknown): unknown {
  if (server.engineRuntime === undefined || !isUnknownRuntimeError(e)) return e;
  return missingRuntimeError(server, undefined, e);
}
