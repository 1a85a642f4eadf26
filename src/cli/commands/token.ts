/**
 * `mcpbox token [--rotate]` (SPEC 1, 4.9): prints the bearer token of `serve --http` on stdout (nothing else there,
 * so `export MCPBOX_TOKEN=$(mcpbox token)` works), made on first use; --rotate replaces it.
 */
import type { Context } from "../context.ts";
import { tokenFile } from "../../home.ts";
import { ensureToken, rotateToken } from "../../http/token.ts";
import { err, out } from "../output.ts";

export async function run(ctx: Context): Promise<number> {
  const file = tokenFile();
  if (ctx.options.rotate === true) {
    out(rotateToken(file));
    err(`a new token is in ${file}: a running serve --http refuses the old one from now on; give clients the new one`);
    return 0;
  }
  out(ensureToken(file));
  return 0;
}
