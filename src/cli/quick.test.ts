import { describe, expect, it } from "vitest";
import { buildProgram } from "./program.ts";
import { quickCommand } from "./quick.ts";
import type { Context } from "./context.ts";

/** What commander makes of a command line: the command it runs and its options, or "usage" (an error, help). */
async function commanderOf(args: string[]): Promise<{ command: string; options: string } | "usage"> {
  let seen: { command: string; ctx: Context } | undefined;
  const program = buildProgram(() => {}, (command, ctx) => (seen = { command, ctx }));
  program.configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  try {
    await program.parseAsync(["node", "mcpbox", ...args]);
  } catch {
    return "usage";
  }
  if (!seen) return "usage";
  expect(seen.ctx.configPath).toBe(seen.ctx.options.config);
  return { command: seen.command, options: JSON.stringify(seen.ctx.options) };
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
  ["serve"],
  ["build"],
  ["doctor", "--json"],
  ["tools", "--json"],
  ["schema"],
  ["__reap", "--session", "s", "--pid", "1"],
];

describe("quick command lines (no commander)", () => {
  it("answers each form it takes exactly as commander does", async () => {
    for (const args of ACCEPTED) {
      const quick = quickCommand(args);
      expect(quick, args.join(" ")).toBeDefined();
      expect(await commanderOf(args), args.join(" ")).toEqual({ command: "validate", options: JSON.stringify(quick!.options) });
    }
  });

  it("leaves every other command line to commander", () => {
    for (const args of LEFT_TO_COMMANDER) expect(quickCommand(args), args.join(" ")).toBeUndefined();
  });

  it("agrees with commander on every short command line of its words", async () => {
    // every sequence of up to 4 of these words: the quick parser takes it only where commander runs validate alike
    const words = ["validate", "--json", "-c", "--config", "x.ts", "-x", "--", "--help", ""];
    const lines: string[][] = [[]];
    for (let n = 1; n <= 4; n++) for (const l of lines.filter((x) => x.length === n - 1)) for (const w of words) lines.push([...l, w]);
    let taken = 0;
    for (const args of lines) {
      const quick = quickCommand(args);
      if (!quick) continue;
      taken++;
      expect(await commanderOf(args), JSON.stringify(args)).toEqual({ command: "validate", options: JSON.stringify(quick.options) });
    }
    expect(taken).toBeGreaterThan(10);
  });

  it("loads the validate command", async () => {
    const mod = await quickCommand(["validate"])!.load();
    expect(typeof mod.run).toBe("function");
  });
});
