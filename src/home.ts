/** `$MCPBOX_HOME` (default `~/.mcpbox`): audit logs, control sockets and caches. */
import os from "node:os";
import path from "node:path";

export function mcpboxHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.MCPBOX_HOME || path.join(os.homedir(), ".mcpbox");
}
