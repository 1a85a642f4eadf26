/**
 * The single executable's main script (CommonJS, builtins only). The program itself is an ESM code-split bundle
 * stored as SEA assets; it is extracted once per build hash into $MCPBOX_HOME/cache/bin/<hash>/ and imported from
 * there, because a SEA main script cannot import ESM from memory. Each chunk is compared, as it is loaded, with its
 * copy embedded in the binary, so a changed file in the cache is never run (verifyChunks).
 */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const sea = require("node:sea");
const { pathToFileURL } = require("node:url");

const manifest = JSON.parse(sea.getAsset("mcpbox/manifest.json", "utf8"));
const DAY = 24 * 3600 * 1000;

const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
// Windows has no owner uid nor mode bits in stat (every folder reads 0666/0777): its ACLs keep %USERPROFILE% private
const posixModes = process.platform !== "win32";

/** The folder holding this build's chunks, extracted (or a missing chunk written again) first; verifyChunks checks them. */
function programDir() {
  const root = homeCacheRoot();
  if (root) {
    try {
      const dir = path.join(root, manifest.hash);
      if (!fs.existsSync(dir)) {
        extract(root, dir);
        prune(root);
      }
      repair(dir);
      return markUsed(dir);
    } catch {
      // a home that cannot be written (read-only, full): a private folder of this run instead
    }
  }
  return tempProgramDir();
}

/**
 * $MCPBOX_HOME/cache/bin, each folder made 0700 and checked as src/home.ts checks them (this runs before that code
 * is loaded): another user's folder, or one others can write, is refused. Undefined when it cannot be made.
 */
function homeCacheRoot() {
  let dir;
  try {
    dir = process.env.MCPBOX_HOME || path.join(os.homedir(), ".mcpbox");
  } catch {
    return undefined; // no home folder (a uid without a passwd entry, in a container)
  }
  const what = ["$MCPBOX_HOME", "mcpbox's folder", "mcpbox's folder"];
  const parts = [dir, path.join(dir, "cache"), path.join(dir, "cache", "bin")];
  for (let i = 0; i < parts.length; i++) if (!privateFolder(parts[i], what[i])) return undefined;
  return parts[2];
}

/** True when dir is (now) a private folder of this user; false when it cannot be made; throws when it is untrusted. */
function privateFolder(dir, what) {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    if (e.code !== "EEXIST") return false;
  }
  const yours = "set MCPBOX_HOME (or audit.path) to a folder of your own";
  const refuse = (why, fix) => {
    throw Object.assign(new Error(`${what} ${dir} ${why}`), { untrusted: true, hint: fix });
  };
  const link = fs.lstatSync(dir);
  if (link.isSymbolicLink() && uid !== undefined && link.uid !== uid && link.uid !== 0) {
    refuse(`is a symbolic link owned by uid ${link.uid}, not by you (uid ${uid})`, `remove the link, or ${yours}`);
  }
  let st;
  try {
    st = fs.statSync(dir);
  } catch {
    return false;
  }
  if (!st.isDirectory()) return false;
  if (uid !== undefined && st.uid !== uid) refuse(`is owned by uid ${st.uid}, not by you (uid ${uid})`, `${yours}; mcpbox makes it, private to you`);
  if (posixModes && (st.mode & 0o022) !== 0) {
    const who = (st.mode & 0o020) !== 0 && (st.mode & 0o002) !== 0 ? "group and others" : (st.mode & 0o020) !== 0 ? "its group" : "others";
    const mode = (st.mode & 0o7777).toString(8).padStart(4, "0");
    refuse(`is writable by ${who} (mode ${mode}): they could plant files mcpbox trusts`, `chmod 700 ${dir} (and check what is in it), or ${yours}`);
  }
  if (posixModes && (st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  return true;
}

/**
 * No usable home: a fresh folder from mkdtemp (never a name someone could have taken first), removed at exit.
 * Folders that killed runs left behind are removed after a day.
 */
function tempProgramDir() {
  const tmp = os.tmpdir();
  pruneTemp(tmp);
  const base = fs.mkdtempSync(path.join(tmp, "mcpbox-sea-"));
  process.on("exit", () => fs.rmSync(base, { recursive: true, force: true }));
  const root = path.join(base, "bin");
  const dir = path.join(root, manifest.hash);
  extract(root, dir);
  repair(dir);
  return dir;
}

function pruneTemp(tmp) {
  try {
    for (const name of fs.readdirSync(tmp)) {
      if (!/^mcpbox-sea-[A-Za-z0-9]{6}$/.test(name)) continue;
      const st = fs.lstatSync(path.join(tmp, name));
      if (st.isDirectory() && st.uid === uid && Date.now() - st.mtimeMs > DAY) fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
    }
  } catch {
    // only housekeeping
  }
}

/**
 * Writes again (temp file + rename: a reader sees the old file or the new one) every chunk that is missing. One
 * readdir per folder of the build (two) instead of a stat per chunk (80-odd, ~2 ms of every start, issue 15): a
 * regular file of the name is there, as existsSync said; anything else under the name (a link, a folder) is still
 * asked of existsSync, as before.
 */
function repair(dir) {
  const listed = new Map(); // folder of the build -> the names of its regular files, or undefined when it is unreadable
  for (const file of manifest.files) {
    const slash = file.lastIndexOf("/");
    const folder = slash < 0 ? "" : file.slice(0, slash);
    if (!listed.has(folder)) listed.set(folder, regularFiles(path.join(dir, folder)));
    const names = listed.get(folder);
    if (names && names.has(file.slice(slash + 1))) continue;
    if (!fs.existsSync(path.join(dir, file))) rewrite(dir, file);
  }
}

/** The names of the regular files in a folder (a Set), or undefined when it cannot be read. */
function regularFiles(folder) {
  try {
    const names = new Set();
    for (const e of fs.readdirSync(folder, { withFileTypes: true })) if (e.isFile()) names.add(e.name);
    return names;
  } catch {
    return undefined;
  }
}

function rewrite(dir, file) {
  const target = path.join(dir, file);
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  // node:crypto only here: loading it costs every start about 8 ms (issue 15)
  const tmp = path.join(path.dirname(target), `.${path.basename(file)}.${require("node:crypto").randomBytes(6).toString("hex")}.tmp`);
  try {
    fs.writeFileSync(tmp, new Uint8Array(sea.getRawAsset(`mcpbox/app/${file}`)), { flag: "wx", mode: 0o600 });
    fs.renameSync(tmp, target);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Every chunk is compared, as it is loaded, with its original embedded in the binary (a memcmp; hashing it needed
 * node:crypto, whose loading alone cost more than the whole comparison): the bytes checked are the bytes compiled.
 * A changed chunk is never run: its embedded original is compiled instead and written back for the next start.
 */
function verifyChunks(dir) {
  const mod = require("node:module");
  const files = new Set(manifest.files);
  const base = pathToFileURL(fs.realpathSync(dir)).href + "/"; // the URLs Node resolves to
  mod.registerHooks({
    // chunks import each other by relative paths: resolved here without Node's realpath, so a chunk replaced by a
    // link to a file elsewhere still has a URL under `base` and is checked below
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      const url = specifier.startsWith(base) ? specifier : parent && parent.startsWith(base) && /^\.\.?\//.test(specifier) ? new URL(specifier, parent).href : undefined;
      if (url && url.startsWith(base)) return { url, format: "module", shortCircuit: true };
      return nextResolve(specifier, context);
    },
    load(url, context, nextLoad) {
      const result = nextLoad(url, context);
      if (!url.startsWith(base)) return result;
      const file = decodeURIComponent(url.slice(base.length).split(/[?#]/)[0]);
      if (!files.has(file)) throw new Error(`${url} is not part of this build of mcpbox`);
      const embedded = Buffer.from(sea.getRawAsset(`mcpbox/app/${file}`));
      const loaded = typeof result.source === "string" ? Buffer.from(result.source) : Buffer.from(result.source.buffer, result.source.byteOffset, result.source.byteLength);
      if (embedded.equals(loaded)) return result;
      try {
        rewrite(dir, file);
      } catch {
        // the embedded chunk runs anyway; the next start tries again
      }
      return { ...result, source: embedded };
    },
  });
  return base;
}

/** Writes every chunk into a fresh temp folder, then renames it into place: readers never see half a folder. */
function extract(root, dir) {
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const tmp = fs.mkdtempSync(path.join(root, `.${manifest.hash}-`));
  try {
    for (const file of manifest.files) {
      const target = path.join(tmp, file);
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fs.writeFileSync(target, new Uint8Array(sea.getRawAsset(`mcpbox/app/${file}`)), { flag: "wx", mode: 0o600 });
    }
    fs.renameSync(tmp, dir);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (fs.existsSync(dir)) return; // another process won the race: repair() checks its folder
    throw e;
  }
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
    const cache = path.join(path.dirname(path.dirname(dir)), "compile");
    if (privateFolder(cache, "mcpbox's folder")) mod.enableCompileCache(cache);
  } catch {
    // a cache is an optimisation only
  }
}

/** The command word of argv (what follows the global -c/--config value), or undefined. */
function commandOf(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-c" || args[i] === "--config") i++;
    else if (!args[i].startsWith("-")) return args[i];
  }
  return undefined;
}

/**
 * `serve` runs for hours and works in bursts. Garbage of the calls in flight survives the 1 MB young generation and
 * piles up in old space, which V8 lets grow to a few times the live heap before its next full collection; a gateway
 * that goes idle never reaches it, so it keeps that memory (issue 15's bench: 22 MB live, up to 60 MB of garbage more
 * after 100k calls). Once the event loop has been under 1% busy for two seconds and the heap is 4 MB past what the
 * last clean-up left, one full collection of V8's "last resort" kind (the one that also gives freed pages back)
 * returns it: only while idle, never while calls are busy, and at most once per 4 MB of growth.
 */
function releaseWhenIdle() {
  const v8 = require("node:v8");
  const { performance } = require("node:perf_hooks");
  // a gc function for this code alone: the program's contexts have none (flags set here, after the compile cache
  // was enabled, do not change its folder's name, which hashes the V8 flags)
  v8.setFlagsFromString("--expose-gc");
  const gc = require("node:vm").runInNewContext("gc");
  v8.setFlagsFromString("--no-expose-gc");
  const MB = 1024 * 1024;
  let floor = 0; // the first idle moment after start collects start-up's garbage as well
  let idleTicks = 0;
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    try {
      const now = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(now, last).utilization;
      last = now;
      idleTicks = busy < 0.01 ? idleTicks + 1 : 0;
      if (idleTicks < 2 || v8.getHeapStatistics().total_heap_size < floor + 4 * MB) return;
      gc({ type: "major", execution: "sync", flavor: "last-resort" });
      floor = v8.getHeapStatistics().total_heap_size;
      last = performance.eventLoopUtilization(); // the collection itself is not the program being busy
      idleTicks = 0;
    } catch {
      clearInterval(timer); // housekeeping never takes the gateway down
    }
  }, 1000);
  timer.unref();
}

// `mcpbox --version` needs none of the program (same value as __MCPBOX_VERSION__, both from package.json)
if (process.argv.length === 3 && process.argv[2] === "--version") process.stdout.write(`${manifest.version}\n`);
else start();

function start() {
  let dir;
  let base;
  try {
    dir = programDir();
    base = verifyChunks(dir);
    enableCompileCache(dir);
  } catch (e) {
    const message = e && e.message ? e.message : String(e);
    if (e && e.untrusted) process.stderr.write(`error: ${message}\nhint: ${e.hint}\n`);
    else process.stderr.write(`error: mcpbox cannot unpack itself: ${message}\nhint: set MCPBOX_HOME to a writable folder\n`);
    process.exit(3);
  }
  if (commandOf(process.argv.slice(2)) === "serve") {
    try {
      releaseWhenIdle();
    } catch {
      // only memory housekeeping
    }
  }
  // the entry under the checked real folder's URL, so it goes through the hash check like every chunk it imports
  import(new URL(manifest.entry, base).href).catch((e) => {
    process.stderr.write(`internal error: mcpbox failed to start: ${e && e.message ? e.message : String(e)}\n`);
    if (process.env.MCPBOX_DEBUG && e && e.stack) process.stderr.write(`${e.stack}\n`);
    process.exit(70);
  });
}
