/**
 * Hidden command: the egress proxy or forwarder of a server (src/egress), run by mcpbox itself inside its own
 * hardened containers. Its settings come in MCPBOX_EGRESS (JSON); it prints one "ready" line, then records, and
 * stops on SIGTERM.
 */
import type { Context } from "../context.ts";
import { McpboxError, messageOf } from "../../errors.ts";
import { readSettings } from "../../egress/process.ts";

export async function run(_ctx: Context): Promise<number> {
  const settings = readSettings(process.env);
  if (typeof settings === "string") throw new McpboxError("usage", `__egress: ${settings}`);
  const running = await (settings.role === "proxy"
    ? import("../../egress/proxy.ts").then((m) => m.runProxy(settings))
    : import("../../egress/forwarder.ts").then((m) => m.runForwarder(settings))
  ).catch((e: unknown) => {
    throw new McpboxError("failed", `egress ${settings.role} could not listen: ${messageOf(e)}`, { cause: e });
  });
  process.stdout.write(`${JSON.stringify({ type: "ready", role: settings.role })}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  await Promise.race([running.close(), new Promise((r) => setTimeout(r, 500).unref())]);
  return 0;
}
