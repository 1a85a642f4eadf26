/** `mcpbox doctor [--json]`: checks what mcpbox needs (SPEC 1); exit 3 when the engine is unusable, 1 when another check fails. */
import type { Context } from "../context.ts";
import { runChecks } from "../../doctor/gather.ts";
import { exitCodeOf, formatHuman, summaryOf, toJson } from "../../doctor/report.ts";
import { err, out, paint, printJson } from "../output.ts";

export async function run(ctx: Context): Promise<number> {
  const results = await runChecks({ configPath: ctx.configPath, cwd: ctx.cwd });
  const code = exitCodeOf(results);
  if (ctx.options.json) {
    printJson(toJson(results));
    return code;
  }
  out(formatHuman(results, paint));
  const summary = summaryOf(results);
  if (code === 0) out(paint.green(summary));
  else err(`${paint.red("error:")} ${summary}`);
  return code;
}
