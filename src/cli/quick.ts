/**
 * The command lines that need no command-line library: `validate`, with `--json` and `-c`/`--config <path>`, the
 * command scripts, editors and CI run most. Loading commander and declaring every command was ~15% of validate's
 * start (issue 15). Anything else (help, another command, an unknown, repeated or attached option, a value that starts
 * with "-" or is empty) is undefined here, and commander (program.ts) parses it as before. The options are the very
 * object commander's optsWithGlobals gives (the command's own, then the global ones; quick.test.ts compares them).
 */
import type { Context } from "./context.ts";

export interface QuickCommand {
  options: Record<string, unknown>;
  load: () => Promise<{ run: (ctx: Context) => Promise<number | void> }>;
}

export function quickCommand(args: readonly string[]): QuickCommand | undefined {
  let command: string | undefined;
  let json = false;
  let config: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "validate" && command === undefined) command = a;
    else if (a === "--json" && command !== undefined && !json) json = true;
    else if ((a === "-c" || a === "--config") && config === undefined) {
      const v = args[++i];
      if (v === undefined || v === "" || v.startsWith("-")) return undefined;
      config = v;
    } else return undefined;
  }
  if (command === undefined) return undefined;
  const options: Record<string, unknown> = {};
  if (json) options.json = true;
  if (config !== undefined) options.config = config;
  return { options, load: () => import("./commands/validate.ts") };
}
