/**
 * The only place that exits the process: runs the program and turns every outcome into text on stderr and an
 * exit code (SPEC 1): 0 ok, 1 failed, 2 usage, 3 environment, 70 internal error.
 */
import type { CommanderError } from "commander";
import { EXIT, isMcpboxError, type McpboxError } from "../errors.ts";
import { terminalText } from "../text/terminal.ts";
import { ISSUES_URL, VERSION } from "../version.ts";
import { paint, streamMade, trackStdio } from "./output.ts";
import { quickCommand, type QuickCommand } from "./quick.ts";
import type { Context } from "./context.ts";

// commander's error class, once program.ts is loaded (nothing else throws one)
let commanderError: typeof CommanderError | undefined;

export function runMain(argv: string[] = process.argv): void {
  trackStdio(); // before anything could have made process.stdout or process.stderr (output.ts)
  const quick = quickCommand(argv.slice(2));
  (quick ? runQuick(quick) : runProgram(argv)).then(exit, (e: unknown) => exit(report(e)));
}

/** What program.ts's action does for a command line quick.ts answered: the same context, the same module. */
async function runQuick(quick: QuickCommand): Promise<number> {
  const ctx: Context = { configPath: quick.options.config as string | undefined, cwd: process.cwd(), options: quick.options };
  const mod = await quick.load();
  const code = await mod.run(ctx);
  return typeof code === "number" ? code : 0;
}

async function runProgram(argv: string[]): Promise<number> {
  const loaded = await import("./program.ts");
  commanderError = loaded.CommanderError;
  let exitCode: number | undefined;
  const program = loaded.buildProgram((code) => {
    exitCode = code;
  });
  await program.parseAsync(argv);
  return exitCode ?? EXIT.ok;
}

/** Prints what went wrong; returns the exit code. commander: its error class (default: the loaded one, if any). */
export function report(e: unknown, commander: typeof CommanderError | undefined = commanderError): number {
  if (commander !== undefined && e instanceof commander) {
    if (e.exitCode === 0) return EXIT.ok; // --help, --version
    process.stderr.write(`${paint.dim("(run `mcpbox --help` to see commands and options)")}\n`);
    return EXIT.usage;
  }
  if (isMcpboxError(e)) {
    process.stderr.write(formatError(e));
    return e.exitCode;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  process.stderr.write(
    `${paint.red("internal error:")} ${terminalText(err.message)}\n` +
      `This is a bug in mcpbox ${VERSION}. Please report it at ${ISSUES_URL} with the command you ran` +
      (process.env.MCPBOX_DEBUG ? `.\n${err.stack ?? ""}\n` : ` (set MCPBOX_DEBUG=1 for details).\n`),
  );
  return EXIT.internal;
}

// messages carry what servers and builds said (a build log's tail, a server's error): no escapes reach the terminal
export function formatError(e: McpboxError): string {
  const lines = [`${paint.red("error:")} ${terminalText(e.message)}`];
  for (const d of e.details) lines.push(`  ${terminalText(d)}`);
  if (e.hint) lines.push(`${paint.yellow("hint:")} ${terminalText(e.hint)}`);
  if (process.env.MCPBOX_DEBUG && e.cause instanceof Error && e.cause.stack) lines.push(e.cause.stack);
  return lines.join("\n") + "\n";
}

function exit(code: number): void {
  // let buffered output reach pipes before exiting (a stream never made has nothing buffered: what output.ts wrote
  // without it went out at once, and making it here only to flush it cost a start 3-5 ms)
  const made = (["stdout", "stderr"] as const).filter(streamMade);
  let pending = made.length;
  if (pending === 0) process.exit(code);
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  for (const name of made) process[name].write("", done);
}
