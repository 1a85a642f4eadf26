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
