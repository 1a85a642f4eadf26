/** Labels on every container mcpbox starts (SPEC 4.6): cleanup, `mcpbox ps` and the monitor find containers by them. */
export const LABEL = {
  managed: "mcpbox.managed",
  session: "mcpbox.session",
  server: "mcpbox.server",
  ownerPid: "mcpbox.owner-pid",
  configHash: "mcpbox.config-hash",
  /** not in SPEC 4.6: pids mean something on one host only, so the sweep leaves other hosts' containers alone */
  ownerHost: "mcpbox.owner-host",
} as const;

export interface ContainerLabels {
  session: string;
  server: string;
  ownerPid: number;
  configHash: string;
  ownerHost: string;
}

/** The five labels of SPEC 4.6 (plus the owner's host) of one gateway-owned container. */
export function containerLabels(l: ContainerLabels): Record<string, string> {
  return {
    [LABEL.managed]: "true",
    [LABEL.session]: l.session,
    [LABEL.server]: l.server,
    [LABEL.ownerPid]: String(l.ownerPid),
    [LABEL.configHash]: l.configHash,
    [LABEL.ownerHost]: l.ownerHost,
  };
}

/** A label filter for the engine's list call: `{ label: ["k=v", ...] }`, JSON-encoded as the API wants it. */
export function labelFilter(labels: Readonly<Record<string, string>>): string {
  return JSON.stringify({ label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) });
}

/** The owner pid recorded on a container, or undefined when it is missing or not a positive integer. */
export function ownerPidOf(labels: Readonly<Record<string, string>> | undefined): number | undefined {
  const raw = labels?.[LABEL.ownerPid];
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const pid = Number(raw);
  return pid > 0 ? pid : undefined;
}
