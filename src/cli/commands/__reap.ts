/** Hidden command: the detached reaper a gateway starts (src/docker/reaper.ts). Prints nothing. */
import type { Context } from "../context.ts";
import { ownerExit, removeSessionUntilIdle } from "../../docker/reaper.ts";
import { McpboxError } from "../../errors.ts";

export async function run(ctx: Context): Promise<number> {
  const session = ctx.options.session;
  const pid = Number(ctx.options.pid);
  if (typeof session !== "string" || session === "" || !Number.isInteger(pid) || pid <= 0) {
    throw new McpboxError("usage", "__reap needs --session <id> and --pid <owner pid>");
  }
  await ownerExit(pid);
  const { engine } = await import("../../docker/engine.ts"); // loaded only when there is work to do
  await removeSessionUntilIdle(engine(), session);
  return 0;
}
