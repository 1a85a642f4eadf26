import type { Context } from "../context.ts";
import os from "node:os";
import { realEnv, type CheckEnv } from "../../config/checks.ts";
import { checkRawConfigQuickly } from "../../config/quick-check.ts";
import { displayPath, loadConfigFile } from "../../config/_file.ts";
import { discoverEngine, hostDiscoveryEnv, type Discovery } from "../../docker/discover.ts";
import { fileSharingProblem, sharedFolders } from "../../docker/file-sharing.ts";
import { errorsOf, formatProblem, warningsOf, dotted } from "../../config/problems.ts";
import { err, out, paint, printJson } from "../output.ts";
import { terminalLine } from "../../text/terminal.ts";

export async function run(ctx: Context): Promise<number> {
  const { file, raw } = await loadConfigFile({ configPath: ctx.configPath, cwd: ctx.cwd });
  const host = hostDiscoveryEnv();
  const fileSharing = fileSharingOf(discoverEngine(host), process.platform, host.home || os.homedir(), host.readFile);
  // zod and the schema load only for a config the fast parser gives up on (a wrong one)
  const { problems, parsed } = await checkRawConfigQuickly(raw, file, { ...realEnv(), ...(fileSharing ? { fileSharing } : {}) });
  const shown = terminalLine(displayPath(file, ctx.cwd)); // a cloned repository names the folder it is in (hrev)
  const errors = errorsOf(problems);
  if (ctx.options.json) {
    printJson({
      file,
      valid: errors.length === 0,
      servers: parsed ? Object.keys(parsed.servers) : [],
      problems: problems.map((p) => ({ ...p, path: dotted(p.path) })),
    });
    return errors.length === 0 ? 0 : 1;
  }
  for (const p of problems) err(formatProblem(shown, p));
  const warnings = warningsOf(problems).length;
  if (errors.length > 0) {
    err(paint.red(`${shown}: ${errors.length} error${errors.length === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`));
    return 1;
  }
  const n = parsed ? Object.keys(parsed.servers).length : 0;
  out(`${paint.green("✓")} ${shown} is valid: ${n} server${n === 1 ? "" : "s"}${warnings ? `, ${warnings} warning${warnings === 1 ? "" : "s"}` : ""}`);
  return 0;
}

/**
 * When the engine discovered is Docker Desktop, which shares only some host folders with its VM: why a mount source
 * cannot be mounted (a warning of validate), from Docker Desktop's settings or its defaults. Other engines: undefined.
 */
export function fileSharingOf(d: Discovery, platform: NodeJS.Platform, home: string, readFile: (p: string) => string | undefined): CheckEnv["fileSharing"] {
  const kind = d.found?.kind;
  if (kind !== "docker-desktop") return undefined;
  const shared = sharedFolders(platform, home, readFile);
  return (s) => fileSharingProblem(s, kind, shared, platform);
}
