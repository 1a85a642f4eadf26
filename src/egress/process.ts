/** The settings of an egress process, read back from MCPBOX_EGRESS and checked (a message when they are wrong). */
import { SETTINGS_ENV, type ForwarderSettings, type ProxySettings } from "./settings.ts";

const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const isPort = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535;

export function readSettings(env: Readonly<Record<string, string | undefined>>): ProxySettings | ForwarderSettings | string {
  const raw = env[SETTINGS_ENV];
  if (!raw) return `${SETTINGS_ENV} is not set`;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return `${SETTINGS_ENV} is not JSON`;
  }
  if (v?.role === "proxy") {
    const ok = Array.isArray(v.listeners) && v.listeners.every((l: Record<string, unknown>) =>
      isText(l?.server) && isText(l.socket) && Array.isArray(l.allow) && l.allow.every(isText));
    return ok ? (v as unknown as ProxySettings) : `${SETTINGS_ENV}: bad proxy listeners`;
  }
  if (v?.role === "forward") {
    const http = v.http as Record<string, unknown> | undefined;
    const ok = isText(v.socket) && isText(http?.listen) && isPort(http?.port) && Array.isArray(v.tcp) &&
      v.tcp.every((t: Record<string, unknown>) => isText(t?.listen) && isPort(t.port) && isText(t.host)) &&
      (v.allow === undefined || (Array.isArray(v.allow) && v.allow.every(isText)));
    return ok ? (v as unknown as ForwarderSettings) : `${SETTINGS_ENV}: bad forwarder settings`;
  }
  return `${SETTINGS_ENV}: role must be "proxy" or "forward"`;
}
