import type Docker from "dockerode";

/** The HTTP status docker-modem puts on engine errors, and a way to ignore the expected ones. */
export function statusOf(e: unknown): number | undefined {
  const code = (e as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === "number" ? code : undefined;
}

/** Awaits an engine call, treating the listed statuses (e.g. 404 gone, 409 removal in progress) as done. */
export async function ignoreStatus(call: Promise<unknown>, ...statuses: number[]): Promise<void> {
  try {
    await call;
  } catch (e) {
    if (!statuses.includes(statusOf(e) ?? -1)) throw e;
  }
}

/**
 * Removes a container (force, with its anonymous volumes) and returns once it is gone: when another removal is
 * already in progress (409), waits for that one (up to waitMs). A container already gone is fine.
 */
export async function removeContainer(docker: Docker, id: string, waitMs = 10_000): Promise<void> {
  const c = docker.getContainer(id);
  try {
    await c.remove({ force: true, v: true });
    return;
  } catch (e) {
    if (statusOf(e) === 404) return;
    if (statusOf(e) !== 409) throw e;
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const present = await c.inspect().then(() => true, (e: unknown) => statusOf(e) !== 404);
    if (!present) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}
