/** Small pieces of an upstream's connection: declared capabilities, response ordering, a start deadline. */
import type { ClientCapabilities } from "@modelcontextprotocol/client";
import type { LaunchedServer } from "./launcher.ts";

/** What a client says it can do, of what a server may ask it (either SDK's capabilities type). */
export interface KnownCapabilities {
  sampling?: object | undefined;
  elicitation?: object | undefined;
  roots?: object | undefined;
}

/**
 * What the gateway tells a server it can do: what the real client can do (the gateway forwards it), less what the
 * server's clientRequests policy does not allow (SPEC 9).
 */
export function upstreamCapabilities(
  client: KnownCapabilities,
  allowed: { sampling: boolean; elicitation: boolean; roots: boolean } = { sampling: true, elicitation: true, roots: true },
): ClientCapabilities {
  const caps: ClientCapabilities = {};
  if (client.sampling && allowed.sampling) caps.sampling = client.sampling as ClientCapabilities["sampling"];
  if (client.elicitation && allowed.elicitation) caps.elicitation = client.elicitation as ClientCapabilities["elicitation"];
  if (client.roots && allowed.roots) caps.roots = { listChanged: true };
  return caps;
}

/**
 * The SDK handles notifications one microtask late but responses at once, and forgets a request's progress handler
 * when its response arrives: a last progress notification read in the same chunk as the response would be lost.
 * Responses are delivered one microtask late too, so everything keeps the order the server wrote it in.
 */
export function deferResponses(launched: LaunchedServer): void {
  const t = launched.transport;
  const deliver = t.onmessage;
  if (!deliver) return;
  t.onmessage = (message, extra) => {
    if ("id" in message && !("method" in message)) void Promise.resolve().then(() => deliver.call(t, message, extra));
    else deliver.call(t, message, extra);
  };
}

export async function withTimeout<T>(p: Promise<T>, ms: number, message: string, onLate: (value: T) => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(message));
    }, ms);
  });
  p.then((v) => timedOut && onLate(v), () => {});
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why a server's connection closed while it started: its exit, when that comes within a second. */
export async function exitWhileStarting(launched: LaunchedServer, memory: string): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 1000)));
  const info = await Promise.race([launched.exited.catch(() => undefined), late]);
  clearTimeout(timer);
  if (!info) return undefined;
  return info.oomKilled ? `it ran out of memory while starting (limit ${memory})` : `it exited with code ${info.exitCode} while starting`;
}
