/**
 * Hidden command: the egress proxy or forwarder of a server (src/egress), run by mcpbox itself inside its own
 * hardened containers. Its settings come in MCPBOX_EGRESS (JSON); it prints one "ready" line, then records, and
 * stops on SIGTERM.
 */
import type { Context } from "../context.ts";
import { McpboxError } from "../../errors.ts";
import { readSettings } from "../../egress/process.ts";

export async function run(_ctx: Context): Promise<number> {
  const settings = readSettings(process.env);
  if (typeof settings === "string") throw new McpboxError("usage", `__egress: ${settings}`);
  const running = settings.role === "proxy"
    ? await (await import("../../egress/proxy.ts")).runProxy(settings)
    : await (await import("../../egress/forwarder.ts")).runForwarder(settings);
  process.stdout.write(`${JSON.stringify({ type: "ready", role: settings.role })}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  await Promise.race([running.close(), new Promise((r) => setTimeout(r, 500).unref())]);
  return 0;
}
