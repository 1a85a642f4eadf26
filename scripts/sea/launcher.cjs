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
const DAY = 24 * 3600 * 1000;

/** Candidate cache roots: $MCPBOX_HOME (default ~/.mcpbox), then a per-user folder in the temp dir. */
function cacheRoots() {
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  const roots = [{ dir: path.join(os.tmpdir(), `mcpbox-${uid}`, "cache", "bin"), shared: path.join(os.tmpdir(), `mcpbox-${uid}`) }];
  try {
    roots.unshift({ dir: path.join(process.env.MCPBOX_HOME || path.join(os.homedir(), ".mcpbox"), "cache", "bin") });
  } catch {
    // no home folder (a uid without a passwd entry, in a container): the temp folder only
  }
  return roots;
}

const complete = (dir) => manifest.files.every((f) => fs.existsSync(path.join(dir, f)));

/** The folder holding this build's chunks, extracting it first if needed. */
function programDir() {
  let lastError;
  for (const { dir: root, shared } of cacheRoots()) {
    const dir = path.join(root, manifest.hash);
    try {
      if (shared) ownedPrivateFolder(shared);
      if (complete(dir)) return markUsed(dir);
      if (fs.existsSync(dir)) discardDamaged(root, dir);
      extract(root, dir);
      prune(root);
      return dir;
    } catch (e) {
      lastError = e;
    }
  }
  throw lastError;
}

/**
 * In the shared temp folder anyone could have created mcpbox-<uid> first and planted code in it: use it only if it
 * is a real folder of ours that nobody else can write.
 */
function ownedPrivateFolder(folder) {
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(folder);
  const mine = typeof process.getuid !== "function" || st.uid === process.getuid();
  if (!st.isDirectory() || !mine || (st.mode & 0o022) !== 0) throw new Error(`${folder} is not a private folder of this user`);
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
    if (complete(dir)) return; // another process won the race: its folder is complete
    throw e;
  }
}

/** A chunk was deleted from an unpacked build: move it aside (atomic) and unpack again. */
function discardDamaged(root, dir) {
  if (complete(dir)) return; // another process finished unpacking just now
  const aside = path.join(root, `.${manifest.hash}-damaged-${process.pid}`);
  fs.renameSync(dir, aside);
  fs.rmSync(aside, { recursive: true, force: true });
}

/** Keeps the folder's mtime within a day of its last use, so prune() leaves builds in use alone. */
function markUsed(dir) {
  try {
    if (Date.now() - fs.statSync(dir).mtimeMs > DAY) fs.utimesSync(dir, new Date(), new Date());
  } catch {
    // only bookkeeping
  }
  return dir;
}

/** Removes other builds unused for 30 days and temp folders of interrupted unpacks (after an hour). */
function prune(root) {
  try {
    for (const name of fs.readdirSync(root)) {
      if (name === manifest.hash) continue;
      const p = path.join(root, name);
      const age = Date.now() - fs.statSync(p).mtimeMs;
      if (age > (name.startsWith(".") ? DAY / 24 : 30 * DAY)) fs.rmSync(p, { recursive: true, force: true });
    }
  } catch {
    // only housekeeping
  }
}

/**
 * V8's compile cache beside the chunks: it skips parsing the bundle and, because Node caches type-stripped
 * TypeScript too, loading the TypeScript stripper for an unchanged sandbox.config.ts (about 3x faster startup).
 */
function enableCompileCache(dir) {
  const mod = require("node:module");
  if (typeof mod.enableCompileCache !== "function" || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    mod.enableCompileCache(path.join(path.dirname(path.dirname(dir)), "compile"));
  } catch {
    // a cache is an optimisation only
  }
}

// `mcpbox --version` needs none of the program (same value as __MCPBOX_VERSION__, both from package.json)
if (process.argv.length === 3 && process.argv[2] === "--version") process.stdout.write(`${manifest.version}\n`);
else start();

function start() {
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
}
