/**
 * `npm pack` / `npm publish` (the prepack script): what `npm install -g mcpbox` and `npx mcpbox` run. The installed
 * package has no dist/mcpbox (the single executable is per platform, and large), so its bin is the same program as
 * one ESM file for the Node versions package.json declares (>= 20), dist/npm/mcpbox.mjs, beside a copy of the
 * templates it reads from the package folder (src/assets.ts: dist/templates, the folder above the file).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "./bundle.mjs";
import { ASSET_DIRS } from "./assets.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const outdir = path.join(root, "dist", "npm");
const started = performance.now();
await bundle({ root, outdir, version: pkg.version, target: "node20", splitting: false, shebang: true }).catch(() => {
  process.stderr.write("npm-pack: bundling failed\n");
  process.exit(1);
});
fs.renameSync(path.join(outdir, "main.mjs"), path.join(outdir, "mcpbox.mjs"));
fs.chmodSync(path.join(outdir, "mcpbox.mjs"), 0o755);
for (const dir of ASSET_DIRS) {
  fs.rmSync(path.join(root, "dist", dir), { recursive: true, force: true });
  fs.cpSync(path.join(root, dir), path.join(root, "dist", dir), { recursive: true });
}
const size = fs.statSync(path.join(outdir, "mcpbox.mjs")).size;
process.stderr.write(`npm-pack: wrote dist/npm/mcpbox.mjs ${(size / 1e6).toFixed(1)} MB and dist/${ASSET_DIRS.join(", dist/")} (${Math.round(performance.now() - started)} ms)\n`);
