/** esbuild: src/cli/main.ts → ESM chunks for the single executable. Returns the entry and every output file. */
import fs from "node:fs";
import path from "node:path";
import * as esbuild from "esbuild";

// ESM chunks that still use CommonJS names (bundled CommonJS packages, optional native addons).
const BANNER = [
  'import { createRequire as __mcpboxCreateRequire } from "node:module";',
  'import { fileURLToPath as __mcpboxFileURLToPath } from "node:url";',
  'import { dirname as __mcpboxDirname } from "node:path";',
  "const require = __mcpboxCreateRequire(import.meta.url);",
  "const __filename = __mcpboxFileURLToPath(import.meta.url);",
  "const __dirname = __mcpboxDirname(__filename);",
].join("\n");

export async function bundle({ root, outdir, version }) {
  fs.rmSync(outdir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: "src/cli/main.ts" },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    minify: true,
    keepNames: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    banner: { js: BANNER },
    define: { __MCPBOX_VERSION__: JSON.stringify(version), "process.env.DEV": '"false"' },
    jsx: "automatic",
    // ssh2's optional addons (dockerode works without them); typescript is only an optional peer of loaders
    external: ["cpu-features", "*.node", "typescript"],
    alias: {
      "react-devtools-core": path.join(root, "scripts/sea/react-devtools-core.mjs"),
      // jiti's ESM entry loads babel through a runtime createRequire that a bundle cannot follow
      jiti: path.join(root, "node_modules/jiti/lib/jiti.cjs"),
    },
    plugins: [missingCommands(root)],
  });
  const files = Object.keys(result.metafile.outputs).map((f) => path.relative(outdir, path.resolve(root, f)));
  return { entry: "main.mjs", files: files.map((f) => f.split(path.sep).join("/")).sort() };
}

/**
 * Commands are written in parallel by several people; a command module that does not exist yet becomes a stub that
 * says so instead of failing the whole build.
 */
function missingCommands(root) {
  return {
    name: "missing-commands",
    setup(build) {
      build.onResolve({ filter: /^\.\/commands\/[a-z-]+\.ts$/ }, (args) => {
        const file = path.resolve(args.resolveDir, args.path);
        if (fs.existsSync(file)) return undefined;
        process.stderr.write(`build: warning: ${path.relative(root, file)} does not exist yet; stubbed\n`);
        return { path: file, namespace: "missing-command" };
      });
      build.onLoad({ filter: /.*/, namespace: "missing-command" }, (args) => ({
        contents: `export async function run() { throw new Error(${JSON.stringify(`${path.basename(args.path, ".ts")} is not implemented in this build`)}); }`,
        loader: "js",
      }));
    },
  };
}
