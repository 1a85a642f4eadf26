import { describe, expect, it } from "vitest";
import { buildProgram } from "./program.ts";
import { quickCommand } from "./quick.ts";
import type { Context } from "./context.ts";

type Parsed = { command: string; options: string; positional: string };

/** What commander makes of a command line: the command it runs, its options and positional arguments, or "usage" (an error, help). */
async function commanderOf(args: string[]): Promise<Parsed | "usage"> {
  let seen: { command: string; ctx: Context; positional: unknown[] } | undefined;
  const program = buildProgram(() => {}, (command, ctx, positional) => (seen = { command, ctx, positional }));
  program.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  try {
    await program.parseAsync(["node", "mcpbox", ...args]);
  } catch {
    return "usage";
  }
  if (!seen) return "usage";
  expect(seen.ctx.configPath).toBe(seen.ctx.options.config);
  return { command: seen.command, options: JSON.stringify(seen.ctx.options), positional: JSON.stringify(seen.positional) };
}

/** The quick parser's answer in commanderOf's terms (undefined: it leaves the line to commander). */
function quickOf(args: string[]): Parsed | undefined {
  const q = quickCommand(args);
  return q && { command: q.command, options: JSON.stringify(q.options), positional: JSON.stringify(q.positional) };
}

/** Every sequence of 1 to n of these words. */
function linesOf(words: string[], n: number): string[][] {
  const lines: string[][] = [[]];
  for (let k = 1; k <= n; k++) for (const l of lines.filter((x) => x.length === k - 1)) for (const w of words) lines.push([...l, w]);
  return lines;
}

const ACCEPTED = [
  ["validate"],
  ["validate", "--json"],
  ["-c", "x.ts", "validate"],
  ["--config", "x.ts", "validate"],
  ["validate", "-c", "x.ts"],
  ["validate", "--config", "dir/x.ts", "--json"],
  ["validate", "--json", "-c", "x.ts"],
  ["-c", "x.ts", "validate", "--json"],
  ["-c", "validate", "validate"],
  ["-c", "json.ts", "validate"],
  ["validate", "-c", "with space/ü.ts"],
  ["serve"],
  ["serve", "s1"],
  ["serve", "s1", "s2"],
  ["-c", "x.ts", "serve"],
  ["serve", "-c", "x.ts", "s1"],
  ["serve", "s1", "--config", "x.ts", "s2"],
  ["serve", "--http"],
  ["serve", "--http", "127.0.0.1:9000"],
  ["serve", "--http", "8808", "s1"],
  ["serve", "s1", "--http"],
  ["serve", "--http", "-c", "x.ts"],
  ["serve", "--http", "-c", "x.ts", "9000"],
  ["serve", "--http", "-c", "x.ts", "s1", "s2"],
  ["serve", "--http", "--allow-unauthenticated"],
  ["serve", "--allow-unauthenticated", "--http", "[::1]:9"],
  ["serve", "--allow-unauthenticated"],
  ["serve", "serve", "validate"],
  ["serve", "help"],
  ["-c", "serve", "serve"],
  ["__reap", "--session", "s", "--pid", "1"],
  ["__reap", "--session", "a0704b26", "--pid", "2224"],
];

// near misses: each is commander's to parse (or refuse)
const LEFT_TO_COMMANDER = [
  [],
  ["--help"],
  ["-h"],
  ["--version"],
  ["validate", "--help"],
  ["validate", "-h"],
  ["validate", "x"],
  ["validate", "validate"],
  ["validate", "--"],
  ["validate", "--", "x"],
  ["--json", "validate"],
  ["validate", "--json", "--json"],
  ["validate", "--jso"],
  ["validate", "--JSON"],
  ["validate", "-j"],
  ["validate", "--json=true"],
  ["validate", "--config=x.ts"],
  ["-cx.ts", "validate"],
  ["validate", "-c"],
  ["validate", "-c", ""],
  ["validate", "-c", "-x.ts"],
  ["validate", "-c", "--json"],
  ["validate", "-c", "a.ts", "-c", "b.ts"],
  ["validate", "--config", "a.ts", "-c", "b.ts"],
  ["-c", "x.ts"],
  ["Validate"],
  ["valid"],
  ["build"],
  ["doctor", "--json"],
  ["tools", "--json"],
  ["schema"],
  ["__reap"],
  ["__reap", "--pid", "1", "--session", "s"],
  ["__reap", "--session", "s"],
  ["__reap", "--session", "s", "--pid", "1", "x"],
  ["__reap", "--session", "", "--pid", "1"],
  ["__reap", "--session", "-s", "--pid", "1"],
  ["__reap", "--session=s", "--pid", "1"],
  ["-c", "x.ts", "__reap", "--session", "s", "--pid", "1"],
  ["serve", "--help"],
  ["serve", "-h"],
  ["serve", "--version"],
  ["serve", "--"],
  ["serve", "--", "s1"],
  ["serve", ""],
  ["serve", "-s1"],
  ["serve", "--json"],
  ["serve", "--http", ""],
  ["serve", "--http", "-"],
  ["serve", "--http", "-5"],
  ["serve", "--http", "-x"],
  ["serve", "--http", "--json"],
  ["serve", "--http=127.0.0.1:9"],
  ["serve", "--http", "a", "--http", "b"],
  ["serve", "--http", "--http"],
  ["serve", "--allow-unauthenticated", "--allow-unauthenticated"],
  ["serve", "--allow"],
  ["serve", "-c", "--http"],
  ["serve", "-c", "a.ts", "-c", "b.ts"],
  ["--http", "serve"],
  ["s1", "serve"],
  ["Serve"],
  ["validate", "s1"],
  ["validate", "--http"],
];

describe("quick command lines (no commander)", () => {
  it("answers each form it takes exactly as commander does", async () => {
    for (const args of ACCEPTED) {
      const quick = quickOf(args);
      expect(quick, args.join(" ")).toBeDefined();
      expect(await commanderOf(args), args.join(" ")).toEqual(quick);
    }
  });

  it("leaves every other command line to commander", () => {
    for (const args of LEFT_TO_COMMANDER) expect(quickCommand(args), args.join(" ")).toBeUndefined();
  });

  it("agrees with commander on every short command line of its words", async () => {
    // every sequence of up to 4 (serve's: 5) of these words: the quick parser takes it only where commander runs the
    // same command with the same options and arguments
    const validate = ["validate", "--json", "-c", "--config", "x.ts", "-x", "--", "--help", ""];
    const serve = ["serve", "s1", "-c", "--config", "x.ts", "--http", "127.0.0.1:9", "--allow-unauthenticated", "-", "-5", "--", "-h", "", "validate", "--json"];
    let taken = 0;
    for (const args of [...linesOf(validate, 4), ...linesOf(serve, 5)]) {
      const quick = quickOf(args);
      if (!quick) continue;
      taken++;
      expect(await commanderOf(args), JSON.stringify(args)).toEqual(quick);
    }
    expect(taken).toBeGreaterThan(4000);
  });

  it("loads the validate command", async () => {
    const mod = await quickCommand(["validate"])!.load();
    expect(typeof mod.run).toBe("function");
  });

  it("loads the reaper", async () => {
    const mod = await quickCommand(["__reap", "--session", "s", "--pid", "1"])!.load();
    expect(typeof mod.run).toBe("function");
  });

  it("loads the serve command", async () => {
    const mod = await quickCommand(["serve", "s1"])!.load();
    expect(typeof mod.run).toBe("function");
  });
});
