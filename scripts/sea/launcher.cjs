/**
 * The single executable's main script (CommonJS, builtins only). The program itself is an ESM code-split bundle
 * stored as SEA assets; it is extracted once per build hash into $MCPBOX_HOME/cache/bin/<hash>/ and imported from
 * there, because a SEA main script cannot import ESM from memory.
 */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const sea = require("node:sea");
const { pathToFileURL } = require("node:url");

const manifest = JSON.parse(sea.getAsset("mcpbox/manifest.json", "utf8"));

/** Candidate cache roots: $MCPBOX_HOME (default ~/.mcpbox), then a per-user folder in the temp dir. */
function cacheRoots() {
  const home = process.env.MCPBOX_HOME || path.join(os.homedir(), ".mcpbox");
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  return [path.join(home, "cache", "bin"), path.join(os.tmpdir(), `mcpbox-${uid}`, "cache", "bin")];
}

/** The folder holding this build's chunks, extracting it first if needed. */
function programDir() {
  let lastError;
  for (const root of cacheRoots()) {
    const dir = path.join(root, manifest.hash);
    if (fs.existsSync(path.join(dir, manifest.entry))) return dir;
    try {
      extract(root, dir);
      return dir;
    } catch (e) {
      lastError = e;
    }
  }
  throw lastError;
}

/** Writes every chunk into a fresh temp folder, then renames it into place: readers never see half a folder. */
function extract(root, dir) {
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const tmp = fs.mkdtempSync(path.join(root, `.${manifest.hash}-`));
  try {
    for (const file of manifest.files) {
      const target = path.join(tmp, file);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, new Uint8Array(sea.getRawAsset(`mcpbox/app/${file}`)));
    }
    fs.renameSync(tmp, dir);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    // another process won the race: its folder is complete
    if (fs.existsSync(path.join(dir, manifest.entry))) return;
    throw e;
  }
}

/**
 * V8's compile cache next to the chunks: it skips parsing the bundle and, because Node caches type-stripped
 * TypeScript too, loading the TypeScript stripper for an unchanged sandbox.config.ts (about 3x faster startup).
 */
function enableCompileCache(programDir) {
  const mod = require("node:module");
  if (typeof mod.enableCompileCache !== "function" || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    mod.enableCompileCache(path.join(path.dirname(path.dirname(programDir)), "compile"));
  } catch {
    // a cache is an optimisation only
  }
}

let dir;
try {
  dir = programDir();
  enableCompileCache(dir);
} catch (e) {
  process.stderr.write(
    `error: mcpbox cannot unpack itself: ${e && e.message ? e.message : String(e)}\n` +
      "hint: set MCPBOX_HOME to a writable folder\n",
  );
  process.exit(3);
}
import(pathToFileURL(path.join(dir, manifest.entry)).href).catch((e) => {
  process.stderr.write(`internal error: mcpbox failed to start: ${e && e.message ? e.message : String(e)}\n`);
  if (process.env.MCPBOX_DEBUG && e && e.stack) process.stderr.write(`${e.stack}\n`);
  process.exit(70);
});
