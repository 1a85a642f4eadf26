/**
 * `mcpbox monitor [--session <id>]` (SPEC 6): the live dashboard of the running gateways. On a terminal it runs the
 * Ink dashboard (loaded lazily: it is .tsx and bundled); otherwise it prints one plain summary. No gateway: says so, 0.
 */
import type { Context } from "../context.ts";
import { McpboxError } from "../../errors.ts";
import { findGateways, watchGateways, type Watch } from "../../monitor/watch.ts";
import { plainSummary } from "../../tui/summary.ts";
import { err, out } from "../output.ts";

/** How long the plain summary waits for the first stats of running containers. */
const STATS_WAIT_MS = 1500;

export async function run(ctx: Context): Promise<number> {
  const session = ctx.options.session as string | undefined;
  const found = findGateways({ session });
  if (found.length === 0) return nothingRunning(session);
  const watch = watchGateways(found, { session, rescanMs: session ? 0 : 2000 });
  try {
    await watch.ready;
    if (watch.store.getState().gateways.length === 0) return nothingRunning(session); // entries left, nobody listening
    if (process.stdout.isTTY && process.stdin.isTTY) {
      const dashboard = await loadDashboard();
      if (dashboard) return await dashboard.runDashboard(watch);
      err("the live dashboard runs in the built binary (npm run build, then dist/mcpbox monitor); a summary follows");
    }
    await statsOrTimeout(watch);
    out(plainSummary(watch.store.getState()));
    return 0;
  } finally {
    watch.close();
  }
}

function nothingRunning(session: string | undefined): number {
  if (session) {
    throw new McpboxError("failed", `no running gateway with session ${session}`, { hint: "`mcpbox ps` lists the running gateways" });
  }
  out("No mcpbox gateway is running. Start one with `mcpbox serve` (your MCP client does this), then run `mcpbox monitor` again.");
  return 0;
}

async function loadDashboard(): Promise<typeof import("../../tui/run.tsx") | undefined> {
  // React's development build records every render in the performance timeline: the monitor's heap grew ~10 MB/s
  process.env.NODE_ENV ??= "production";
  try {
    return await import("../../tui/run.tsx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_UNKNOWN_FILE_EXTENSION") return undefined; // development: .tsx is not stripped
    throw e;
  }
}

/** Waits until every running server has figures, or the time is up. */
function statsOrTimeout(watch: Watch): Promise<void> {
  const complete = () =>
    watch.store
      .getState()
      .gateways.every((g) => g.status !== "live" || g.servers.every((r) => r.state !== "running" || !r.containerId || r.cpuPercent !== undefined));
  return new Promise((resolve) => {
    if (complete()) return resolve();
    const timer = setTimeout(done, STATS_WAIT_MS);
    const unsubscribe = watch.store.subscribe(() => complete() && done());
    function done() {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    }
  });
}
