/**
 * The single executable's main script (CommonJS, builtins only). The program itself is an ESM code-split bundle
 * stored as SEA assets, and it is run from there: module.registerHooks gives each chunk a fixed URL of this build
 * (file:///mcpbox/<build>/..., the same on every machine and in every home: nothing there exists on disk) and its
 * load hook hands Node the embedded bytes themselves, so no chunk is ever read from a file (nothing written on disk
 * can be run as a chunk) and a fresh home writes none. V8's compile cache is made at build time for every chunk and
 * embedded too (scripts/build.mjs): a chunk's entry is written into $MCPBOX_HOME/cache/compile just before its first
 * load in a home, so a first start compiles no more than a warm one.
 */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const sea = require("node:sea");

const manifest = JSON.parse(sea.getAsset("mcpbox/manifest.json", "utf8"));
const DAY = 24 * 3600 * 1000;
const PRECOMPILE = "precompile.mjs"; // the module of MCPBOX_SEA_PRECOMPILE (runPrecompile), not a chunk
const NOT_EXPORTED = "__mcpboxNotExported";

const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
// Windows has no owner uid nor mode bits in stat (every folder reads 0666/0777): its ACLs keep %USERPROFILE% private
const posixModes = process.platform !== "win32";

/**
 * The URL under which this build's chunks run: fixed per build (its hash), so the compile cache made at build time
 * has the same keys everywhere; an absolute path on this platform (fileURLToPath(import.meta.url) works in every chunk)
 * that nothing reads: the load hook below answers for it.
 */
function baseURL() {
  const drive = path.parse(process.execPath).root.slice(0, 2);
  const root = process.platform !== "win32" ? "/" : /^[A-Za-z]:$/.test(drive) ? `/${drive}/` : "/C:/";
  return `file://${root}mcpbox/${manifest.hash}/`;
}

/**
 * $MCPBOX_HOME/cache, each folder made 0700 and checked as src/home.ts checks them (this runs before that code
 * is loaded): another user's folder, or one others can write, is refused. Undefined when it cannot be made.
 */
function homeCacheRoot() {
  let dir;
  try {
    dir = process.env.MCPBOX_HOME || path.join(os.homedir(), ".mcpbox");
  } catch {
    return undefined; // no home folder (a uid without a passwd entry, in a container)
  }
  // relative: in the working folder (an MCP client's workspace, a cloned repository whose committed files would be
  // the compile cache); src/home.ts refuses it to every command that uses the home (hrev)
  if (!path.isAbsolute(dir)) return undefined;
  const what = ["$MCPBOX_HOME", "mcpbox's folder"];
  const parts = [dir, path.join(dir, "cache")];
  for (let i = 0; i < parts.length; i++) {
    if (!privateFolder(parts[i], what[i])) return undefined;
    // before anything is made in it: no cache there (src/home.ts refuses such a home to every command that uses it;
    // validate, which does not, still runs, only without the compile cache)
    if (i === 0 && !ancestorsTrusted(dir)) return undefined;
  }
  return parts[1];
}

/**
 * False when a folder above the home, on its path as given (which Node's compile cache and every later open use) or
 * as resolved, is another user's, or others may write it without the sticky bit, or is a link another user owns:
 * whoever can rename an entry there can swap the checked home for a folder of theirs (forged compile-cache entries,
 * which V8 runs as bytecode: Node checks only the source's length and CRC-32) between this check and the reads.
 * src/home.ts ancestorProblem, repeated (hrev).
 */
function ancestorsTrusted(dir) {
  if (uid === undefined || !posixModes) return true;
  const seen = new Set();
  try {
    for (const start of [path.dirname(path.resolve(dir)), path.dirname(fs.realpathSync(dir))]) {
      for (let d = start; !seen.has(d); d = path.dirname(d)) {
        seen.add(d);
        const link = fs.lstatSync(d);
        const st = link.isSymbolicLink() && link.uid !== uid && link.uid !== 0 ? link : fs.statSync(d);
        if (st.uid !== uid && st.uid !== 0) return false;
        if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) return false;
        if (path.dirname(d) === d) break;
      }
    }
  } catch {
    return false;
  }
  return true;
}

/** True when dir is (now) a private folder of this user; false when it cannot be made; throws when it is untrusted. */
function privateFolder(dir, what, make = true) {
  if (make) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      if (e.code !== "EEXIST") return false;
    }
  }
  const yours = "set MCPBOX_HOME (or audit.path) to a folder of your own";
  const refuse = (why, fix) => {
    throw Object.assign(new Error(`${what} ${dir} ${why}`), { untrusted: true, hint: fix });
  };
  let link;
  try {
    link = fs.lstatSync(dir);
  } catch (e) {
    if (!make && e.code === "ENOENT") return false;
    throw e;
  }
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
 * Runs every chunk from the binary: URLs under `base` resolve (relative imports between chunks included) to `base`
 * alone and load the embedded bytes, never a file; a URL under `base` that is not a chunk of this build is refused.
 * `seed` (the compile-cache folder of this Node, V8 and uid): a chunk's entry embedded at build time is written
 * there, exclusively (an entry already there is left as it is), just before the chunk is compiled.
 */
function loadFromBinary(base, seed, extra) {
  const mod = require("node:module");
  const files = new Set(manifest.files);
  const entries = (seed && manifest.compile && manifest.compile.entries) || {};
  const ours = (specifier, parent) => {
    const url = specifier.startsWith(base) ? specifier : parent && parent.startsWith(base) && /^\.\.?\//.test(specifier) ? new URL(specifier, parent).href : undefined;
    return url && url.startsWith(base) ? url : undefined;
  };
  mod.registerHooks({
    resolve(specifier, context, nextResolve) {
      const url = ours(specifier, context.parentURL);
      if (url) return { url, format: "module", shortCircuit: true };
      // a chunk asks only for builtins and other chunks: anything else (an optional package the bundle lacks, such as
      // debug's supports-color) would be looked for on disk, in node_modules folders above /mcpbox/<build>/ and Node's
      // global folders (<binary>/../lib/node), where another user may plant it (hrev). It is absent, as the bundle meant
      if (context.parentURL && context.parentURL.startsWith(base) && isBare(specifier) && !mod.isBuiltin(specifier)) {
        const cjs = Array.isArray(context.conditions) && context.conditions.includes("require");
        throw Object.assign(new Error(`Cannot find module '${specifier}' (mcpbox runs only the modules it holds)`), { code: cjs ? "MODULE_NOT_FOUND" : "ERR_MODULE_NOT_FOUND" });
      }
      return nextResolve(specifier, context);
    },
    load(url, context, nextLoad) {
      if (!url.startsWith(base)) return nextLoad(url, context);
      const file = decodeURIComponent(url.slice(base.length).split(/[?#]/)[0]);
      if (extra && file === extra.file) return { format: "module", source: extra.source, shortCircuit: true };
      if (!files.has(file)) throw new Error(`${url} is not part of this build of mcpbox`);
      const name = entries[file];
      if (name) writeEntry(seed, name);
      return { format: "module", source: new Uint8Array(sea.getRawAsset(`mcpbox/app/${file}`)), shortCircuit: true };
    },
  });
  // Hooks the program registers later run before these (the config loader's, src/config/_import.ts, which checks
  // every file: URL loaded while a config loads, and would look for a chunk loaded meanwhile, jiti's, on disk): they
  // see every module but the chunks, which no file holds. Exactly the URLs answered above pass them by.
  const register = mod.registerHooks;
  mod.registerHooks = function registerHooks(hooks) {
    const wrapped = { ...hooks };
    if (hooks.resolve) wrapped.resolve = (s, c, next) => (ours(s, c.parentURL) ? next(s, c) : hooks.resolve(s, c, next));
    if (hooks.load) wrapped.load = (u, c, next) => (u.startsWith(base) ? next(u, c) : hooks.load(u, c, next));
    return register.call(this, wrapped);
  };
}

/**
 * The bytes of a packed asset (scripts/sea/pack.mjs: many files as one asset, each at manifest `at[name]`), a view of
 * the executable's own memory, not a copy: only the pages of what is read become resident.
 */
const packs = new Map();
function packed(name) {
  let bytes = packs.get(name);
  if (!bytes) packs.set(name, (bytes = sea.getRawAsset(name)));
  return bytes;
}

/** A package name (`supports-color`, `@scope/x/y`), not a path or URL (the user's config file is imported by path). */
const isBare = (specifier) => !/^(?:\.{0,2}[\\/]|[A-Za-z][A-Za-z0-9+.-]*:)/.test(specifier);

/** Writes one embedded compile-cache entry unless the folder has one of that name. True when it was written. */
function writeEntry(folder, name) {
  try {
    const [offset, length] = manifest.compile.at[name];
    fs.writeFileSync(path.join(folder, name), new Uint8Array(packed("mcpbox/compile.pack"), offset, length), { flag: "wx", mode: 0o600 });
    return true;
  } catch {
    return false; // there already (this build ran here before), or a cache that cannot be written: only slower
  }
}

/**
 * V8's compile cache in $MCPBOX_HOME/cache/compile: it skips parsing the bundle and, because Node caches
 * type-stripped TypeScript too, loading the TypeScript stripper for an unchanged sandbox.config.ts (about 3x faster
 * startup). Returns the folder Node keeps this Node, V8 flags and uid's entries in (the tag the build recorded, as
 * Node names it: v24.x.y-<arch>-<flags hash>-<uid>) when this build has embedded entries for it, else undefined.
 */
function enableCompileCache(cacheRoot) {
  const mod = require("node:module");
  if (typeof mod.enableCompileCache !== "function" || process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const cache = path.join(cacheRoot, "compile");
    if (!privateFolder(cache, "mcpbox's folder")) return undefined;
    const r = mod.enableCompileCache(cache);
    const ok = r && (r.status === mod.constants.compileCacheStatus.ENABLED || r.status === mod.constants.compileCacheStatus.ALREADY_ENABLED);
    if (!ok || !manifest.compile || uid === undefined) return undefined;
    const tagged = path.join(cache, `${manifest.compile.tag}-${uid}`);
    return fs.existsSync(tagged) ? tagged : undefined; // Node made it; another name means other flags: no entry fits
  } catch (e) {
    if (e && e.untrusted) throw e;
    return undefined; // a cache is an optimisation only
  }
}

/**
 * The first start of this build in this home (its entry chunk's compile-cache entry was just written): builds
 * before this one unpacked their chunks into $MCPBOX_HOME/cache/bin/<build>; such a folder unused for 30 days, and a
 * temp folder of an interrupted unpack (an hour), is removed, and cache/bin itself once it is empty. A cache/bin of
 * another user (or that others can write) is refused as before, never cleaned.
 */
function pruneOldBuilds(cacheRoot) {
  const root = path.join(cacheRoot, "bin");
  if (!privateFolder(root, "mcpbox's folder", false)) return;
  try {
    for (const name of fs.readdirSync(root)) {
      const p = path.join(root, name);
      const age = Date.now() - fs.lstatSync(p).mtimeMs;
      if (age > (name.startsWith(".") ? DAY / 24 : 30 * DAY)) fs.rmSync(p, { recursive: true, force: true });
    }
    if (fs.readdirSync(root).length === 0) fs.rmdirSync(root);
  } catch {
    // only housekeeping
  }
}

/**
 * The same first start: compile-cache entries of other code (earlier builds' chunks, whose URLs name their build,
 * and configs since changed) written more than 30 days ago are removed from this Node's folder, so upgrades do not
 * pile up ~2 MB each. Node never rewrites an entry it accepts, so a build still in use elsewhere may lose its
 * entries: it writes them again at its next start (one slower start). Only files and links are removed, in a folder
 * enableCompileCache checked (ours, private).
 */
function pruneOldEntries(folder) {
  const ours = new Set(Object.values(manifest.compile.entries));
  try {
    for (const name of fs.readdirSync(folder)) {
      if (ours.has(name)) continue;
      const p = path.join(folder, name);
      const st = fs.lstatSync(p);
      if ((st.isFile() || st.isSymbolicLink()) && Date.now() - st.mtimeMs > 30 * DAY) fs.unlinkSync(p);
    }
  } catch {
    // only housekeeping
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
  const base = baseURL();
  const precompile = process.env.MCPBOX_SEA_PRECOMPILE === "1";
  try {
    const cacheRoot = homeCacheRoot();
    const seed = cacheRoot ? enableCompileCache(cacheRoot) : undefined; // none in precompile: no entries embedded yet
    const entry = seed && manifest.compile.entries[manifest.entry];
    loadFromBinary(base, seed, precompile ? precompileModule() : undefined);
    // the entry's compile-cache entry missing: a build new to this home (or a cache emptied), so once, housekeeping
    if (entry && writeEntry(seed, entry)) {
      pruneOldBuilds(cacheRoot);
      pruneOldEntries(seed);
    }
  } catch (e) {
    const message = e && e.message ? e.message : String(e);
    if (e && e.untrusted) process.stderr.write(`error: ${message}\nhint: ${e.hint}\n`);
    else process.stderr.write(`error: mcpbox cannot start: ${message}\nhint: set MCPBOX_HOME to a writable folder\n`);
    process.exit(3);
  }
  if (precompile) return runPrecompile(base);
  if (commandOf(process.argv.slice(2)) === "serve") {
    // a second after start, not at it: node:v8, node:perf_hooks and a new vm context cost several ms of the main
    // thread, which the client's first answers wait for (issue 15); its first check is two seconds later anyway
    setTimeout(() => {
      try {
        releaseWhenIdle();
      } catch {
        // only memory housekeeping
      }
    }, 1000).unref();
  }
  import(new URL(manifest.entry, base).href).catch((e) => {
    process.stderr.write(`internal error: mcpbox failed to start: ${e && e.message ? e.message : String(e)}\n`);
    if (process.env.MCPBOX_DEBUG && e && e.stack) process.stderr.write(`${e.stack}\n`);
    process.exit(70);
  });
}

/**
 * scripts/build.mjs (MCPBOX_SEA_PRECOMPILE=1, a temporary home): every chunk compiled and none run. One module
 * imports them all and a name node:module does not export, so Node compiles the whole graph (writing the compile
 * cache at exit) and then fails to link it, before any module's code runs.
 */
function precompileModule() {
  const lines = manifest.files.filter((f) => f.endsWith(".mjs")).map((f) => `import ${JSON.stringify(`./${f}`)};`);
  lines.push(`import { ${NOT_EXPORTED} } from "node:module";`);
  return { file: PRECOMPILE, source: lines.join("\n") };
}

function runPrecompile(base) {
  import(new URL(PRECOMPILE, base).href).then(
    () => process.exit(1), // linked: something ran
    (e) => {
      if (e && e.name === "SyntaxError" && String(e.message).includes(NOT_EXPORTED)) process.exit(0);
      process.stderr.write(`precompile: ${e && e.stack ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
