/**
 * Generates templates/init/mcpbox.d.ts — the editor types `mcpbox init` leaves beside sandbox.config.ts — from the
 * one zod schema, so the editor checks against the real schema. `npm run build` runs it; a unit test checks it is current.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderEditorTypes } from "../src/config/editor-types.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "templates/init/mcpbox.d.ts");
const text = await renderEditorTypes();
if (!fs.existsSync(out) || fs.readFileSync(out, "utf8") !== text) {
  fs.writeFileSync(out, text);
  console.error(`wrote ${path.relative(root, out)}`);
}
