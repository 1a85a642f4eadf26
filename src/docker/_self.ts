/** The argv that re-runs this mcpbox as a session reaper (a hidden command, see src/cli/commands/__reap.ts). */
import { selfCommand } from "../assets.ts";

export function reaperCommand(session: string, ownerPid: number): string[] {
  return [...selfCommand(), "__reap", "--session", session, "--pid", String(ownerPid)];
}
