/**
 * Test support: a gateway over host-process servers (host-launcher.ts) with audit off, no secrets and a silent log,
 * its eager servers started. Never used by `mcpbox serve`.
 */
import type { ResolvedServer } from "../config/resolve.ts";
import { GatewayEvents } from "../monitor/events.ts";
import { openAudit } from "./audit.ts";
import { Gateway } from "./gateway.ts";
import { hostLauncher, type HostCommand } from "./host-launcher.ts";
import { redactor } from "./redact.ts";

export function hostGateway(servers: ResolvedServer[], command: HostCommand): Gateway {
  const gw = new Gateway({
    servers,
    launcher: hostLauncher(command),
    session: "test",
    events: new GatewayEvents(),
    audit: openAudit({ audit: { enabled: false, path: undefined } }),
    redact: redactor([]),
    log: () => {},
  });
  gw.startEager();
  return gw;
}
