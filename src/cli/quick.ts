/**
 * The command lines that need no command-line library: `validate`, with `--json` and `-c`/`--config <path>`, the
 * command scripts, editors and CI run most, and `serve [server...]` with `--http [host:port]`,
 * `--allow-unauthenticated` and `-c`/`--config <path>`, the command an MCP client launches at each of its starts.
 * Loading commander and declaring every command was ~15% of validate's start and ~10 ms of serve's before it answers
 * initialize (issue 15). Anything else (help, another command, an unknown, repeated or attached option, a value that
 * starts with "-" or is empty, a `--http` followed by a word that starts with "-" and is none of serve's options, `--`)
 * is undefined here, and commander (program.ts) parses it as before. The options are the very object commander's
 * optsWithGlobals gives (the command's own in the order given, then the global ones), the positional arguments those
 * commander gives the action (quick.test.ts compares both on every short line). The reaper a gateway starts
 * (`__reap --session <id> --pid <pid>`, exactly as docker/_self.ts writes it) is taken here too: it runs beside the
 * session's first containers, and commander was most of its own start.
 */
import type { Context } from "./context.ts";

export interface QuickCommand {
  command: "validate" | "serve" | "__reap";
  options: Record<string, unknown>;
  /** what commander passes the action before its options: serve's server names as one array, nothing for validate */
  positional: unknown[];
  /** the command's module, its run bound to the positional arguments */
  load: () => Promise<{ run: (ctx: Context) => Promise<number | void> }>;
}

export function quickCommand(args: readonly string[]): QuickCommand | undefined {
  if (args[0] === "__reap") return reaperCommand(args);
  // commander's program takes its -c/--config <path> (with the word after it) wherever it stands, before the command
  // sees any word: `serve --http -c x.ts 9000` is --http 9000
  let config: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a !== "-c" && a !== "--config") rest.push(a);
    else {
      const v = args[++i];
      if (config !== undefined || v === undefined || v === "" || v.startsWith("-")) return undefined;
      config = v;
    }
  }
  let command: "validate" | "serve" | undefined;
  const own: [string, unknown][] = [];
  const names: string[] = [];
  const has = (key: string) => own.some(([k]) => k === key);
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (command === undefined) {
      if (a !== "validate" && a !== "serve") return undefined;
      command = a;
    } else if (command === "validate") {
      if (a !== "--json" || has("json")) return undefined;
      own.push(["json", true]);
    } else if (a === "--allow-unauthenticated") {
      if (has("allowUnauthenticated")) return undefined;
      own.push(["allowUnauthenticated", true]);
    } else if (a === "--http") {
      if (has("http")) return undefined;
      // an optional value: the next word unless it is an option (serve's own are read next, any other gives up)
      const v = rest[i + 1];
      if (v === undefined || v === "--allow-unauthenticated" || v === "--http") own.push(["http", true]);
      else if (v === "" || v.startsWith("-")) return undefined;
      else own.push(["http", rest[++i]]);
    } else if (a === "" || a.startsWith("-")) return undefined;
    else names.push(a);
  }
  if (command === undefined) return undefined;
  const options: Record<string, unknown> = Object.fromEntries(own);
  if (config !== undefined) options.config = config;
  if (command === "validate") return { command, options, positional: [], load: () => import("./commands/validate.ts") };
  return {
    command,
    options,
    positional: [names],
    load: async () => {
      const serve = await import("./commands/serve.ts");
      return { run: (ctx: Context) => serve.run(ctx, names) };
    },
  };
}

/** `__reap --session <id> --pid <pid>` and nothing else (a value that is empty or starts with "-": commander's). */
function reaperCommand(args: readonly string[]): QuickCommand | undefined {
  const [, s, session, p, pid] = args;
  const value = (v: string | undefined): v is string => v !== undefined && v !== "" && !v.startsWith("-");
  if (args.length !== 5 || s !== "--session" || p !== "--pid" || !value(session) || !value(pid)) return undefined;
  return { command: "__reap", options: { session, pid }, positional: [], load: () => import("./commands/__reap.ts") };
}
