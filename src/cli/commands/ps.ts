/**
 * `mcpbox ps [--json]`: the running gateways (from their published entries in $MCPBOX_HOME/run) and their containers
 * (found by the mcpbox.session / mcpbox.server labels). Stale entries of dead gateways are removed on the way.
 */
import type { Context } from "../context.ts";
import { engineError } from "../../docker/engine.ts";
import { listSessionContainers, type SessionContainer } from "../../docker/stats.ts";
import { isAlive } from "../../monitor/paths.ts";
import { findGateways } from "../../monitor/watch.ts";
import { terminalLine } from "../../text/terminal.ts";
import { fit, uptime } from "../../text/format.ts";
import { out, paint, printJson } from "../output.ts";

export async function run(ctx: Context): Promise<number> {
  const gateways = findGateways();
  let containers: SessionContainer[];
  try {
    containers = await listSessionContainers();
  } catch (e) {
    throw engineError(e);
  }
  const bySession = (session: string) => containers.filter((c) => c.session === session);
  const known = new Set(gateways.map((g) => g.info.session));
  const unknown = containers.filter((c) => !known.has(c.session));
  // alive but not published in this MCPBOX_HOME: another home, or a gateway without its monitor socket
  const others = unknown.filter((c) => c.ownerPid !== undefined && isAlive(c.ownerPid));
  const orphans = unknown.filter((c) => !others.includes(c));

  if (ctx.options.json) {
    printJson({
      gateways: gateways.map((g) => ({
        session: g.info.session,
        pid: g.info.pid,
        config: g.info.configFile,
        started: new Date(g.info.startedAt).toISOString(),
        version: g.info.version,
        socket: g.socket,
        containers: bySession(g.info.session).map(containerJson),
      })),
      unpublished: others.map(containerJson),
      orphans: orphans.map(containerJson),
    });
    return 0;
  }
  if (gateways.length === 0) out("No mcpbox gateway is running.");
  const now = Date.now();
  for (const g of gateways) {
    // published entries and container labels are anyone's words who can write them: printed without escapes
    out(`${paint.bold(`gateway ${g.info.session}`)}  pid ${terminalLine(String(g.info.pid))}  up ${uptime(g.info.startedAt, now)}  ${terminalLine(String(g.info.configFile))}`);
    printContainers(bySession(g.info.session));
  }
  if (others.length > 0) {
    out(paint.dim(`containers of running gateways not published in this MCPBOX_HOME:`));
    printContainers(others);
  }
  if (orphans.length > 0) {
    out(paint.yellow(`containers whose gateway is not running (removed by the next mcpbox start):`));
    printContainers(orphans);
  }
  return 0;
}

const containerJson = (c: SessionContainer) => ({
  id: c.id, server: c.server, state: c.state, status: c.status, image: c.image, session: c.session, ownerPid: c.ownerPid,
});

function printContainers(list: SessionContainer[]): void {
  if (list.length === 0) return void out("  (no containers)");
  out(`  ${fit("CONTAINER", 12)}  ${fit("SESSION", 8)}  ${fit("SERVER", 16)}  ${fit("STATE", 10)}  IMAGE`);
  for (const c of list.sort((a, b) => a.session.localeCompare(b.session) || a.server.localeCompare(b.server))) {
    out(`  ${fit(c.id, 12)}  ${fit(c.session, 8)}  ${fit(c.server, 16)}  ${fit(c.state, 10)}  ${terminalLine(c.image)}`);
  }
}
