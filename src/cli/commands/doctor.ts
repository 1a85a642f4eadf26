/** `mcpbox doctor [--json]`: checks what mcpbox needs (SPEC 1); exit 3 when the engine is unusable, 1 when another check fails. */
import { styleText } from "node:util";
import type { Context } from "../context.ts";
import { runChecks } from "../../doctor/gather.ts";
import { exitCodeOf, formatHuman, summaryOf, toJson, type Painter } from "../../doctor/report.ts";
import { err, out, paint, printJson } from "../output.ts";

export async function run(ctx: Context): Promise<number> {
  const results = await runChecks({ configPath: ctx.configPath, cwd: ctx.cwd });
  const code = exitCodeOf(results);
  if (ctx.options.json) {
    printJson(toJson(results));
    return code;
  }
  const painter = stdoutPainter();
  out(formatHuman(results, painter));
  const summary = summaryOf(results);
  if (code === 0) out(painter.green(summary));
  else err(`${paint.red("error:")} ${summary}`);
  return code;
}

// The checks go to stdout, so its TTY decides the colour (output.ts's paint follows stderr).
function stdoutPainter(): Painter {
  const on = process.stdout.isTTY === true && !("NO_COLOR" in process.env);
  const style = (s: Parameters<typeof styleText>[0]) => (text: string) => (on ? styleText(s, text) : text);
  return { red: style("red"), yellow: style("yellow"), green: style("green"), dim: style("dim") };
}
