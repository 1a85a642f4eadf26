import type { Context } from "../context.ts";
import { configJsonSchema } from "../../config/schema.ts";
import { printJson } from "../output.ts";

export async function run(_ctx: Context): Promise<number> {
  printJson({ $id: "https://mcpbox.dev/schema/sandbox.config.json", ...configJsonSchema() });
  return 0;
}
