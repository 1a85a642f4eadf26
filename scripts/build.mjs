/**
 * `npm run build`: dist/mcpbox, one executable holding the project's Node 24 and the whole program.
 * 1. esbuild bundles src/cli/main.ts as ESM chunks (ink needs top-level await, so no CommonJS bundle).
 * 2. The chunks, templates/ and a manifest become SEA assets behind scripts/sea/launcher.cjs.
 * 3. A stripped copy of Node 24 gets the blob injected with postject. Skipped when nothing changed.
 * 4. That binary compiles every chunk once (V8's compile cache); the binary is made again with the cache embedded.
 * Several builds may run at once (parallel `npm test`): each works in its own folder and renames its result in.
 * `--all` then also makes dist/mcpbox-<os>-<arch> for every platform and dist/SHA256SUMS (scripts/sea/cross.mjs).
 */
import { createHash } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { crc32 } from "node:zlib";
import { bundle } from "./sea/bundle.mjs";
import { assetFiles } from "./sea/assets.mjs";
import { packFiles } from "./sea/pack.mjs";
import { EXEC_ARGV } from "./sea/exec-argv.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cache = path.join(root, ".cache", "sea");
const work = path.join(cache, `build-${process.pid}`);
const out = path.join(root, "dist", "mcpbox");
const stamp = path.join(root, "dist", ".mcpbox.hash");
const tmp = `${out}.${process.pid}.tmp`;
const nodeBin = fs.realpathSync(path.join(root, "node_modules", ".bin", "node"));
const FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
const started = performance.now();
const log = (msg) => process.stderr.write(`build: ${msg} (${Math.round(performance.now() - started)} ms)\n`);

process.on("exit", () => {
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(tmp, { force: true });
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
removeStaleBuildFolders();

const version = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version;
const appDir = path.join(work, "app");
fs.mkdirSync(work, { recursive: true });
const { entry, files } = await bundle({ root, outdir: appDir, version }).catch(() => {
  process.stderr.write("build: bundling failed\n"); // esbuild has printed the errors with their places
  process.exit(1);
});
log(`bundled ${files.length} chunks`);

const assets = { "mcpbox/manifest.json": path.join(work, "manifest.json") };
for (const f of files) assets[`mcpbox/app/${f}`] = path.join(appDir, f);
for (const key of assetFiles(root)) assets[key] = path.join(root, key);

const node = fs.statSync(nodeBin);
const inputs = { launcher: path.join(root, "scripts/sea/launcher.cjs"), ...assets };
delete inputs["mcpbox/manifest.json"]; // written below, from the hash
const SEA_OPTIONS = {
  disableExperimentalSEAWarning: true,
  useSnapshot: false,
  useCodeCache: false, // the launcher's code only; the chunks have the compile cache below
  execArgv: EXEC_ARGV, // scripts/sea/exec-argv.mjs: why each flag

};
const hash = hashOf(inputs, [version, nodeBin, node.size, node.mtimeMs, JSON.stringify(SEA_OPTIONS)]);
const all = process.argv.includes("--all");
if (upToDate(hash)) {
  log(`dist/mcpbox is up to date (${hash})`);
  await buildAllIfAsked();
  process.exit(0);
}
const manifest = { hash, version, entry, files };
fs.writeFileSync(assets["mcpbox/manifest.json"], JSON.stringify(manifest));
fs.mkdirSync(path.dirname(out), { recursive: true });
writeBinary(assets, tmp);
log("wrote the SEA blob and the binary");
// V8's compile cache of every chunk, made by the binary just written (the same Node, V8 flags and chunk URLs as
// every run of it), then embedded beside the chunks: a fresh home starts with it (scripts/sea/launcher.cjs)
const compiled = precompile(tmp);
if (compiled) {
  // one asset for all entries (pack.mjs): a warm start reads none of them
  assets["mcpbox/compile.pack"] = path.join(work, "compile.pack");
  const compileAt = packFiles(Object.keys(compiled.files), compiled.folder, assets["mcpbox/compile.pack"]);
  fs.writeFileSync(assets["mcpbox/manifest.json"], JSON.stringify({ ...manifest, compile: { tag: compiled.tag, entries: compiled.entries, at: compileAt } }));
  writeBinary(assets, tmp);
  log(`embedded the compile cache of ${Object.keys(compiled.entries).length} chunks (${(compiled.bytes / 1e6).toFixed(1)} MB)`);
}
const written = fs.statSync(tmp);
fs.renameSync(tmp, out);
fs.writeFileSync(stamp, stampOf(hash, written));
log(`wrote dist/mcpbox ${(written.size / 1e6).toFixed(1)} MB, build ${hash}`);
await buildAllIfAsked();

/** The SEA blob of these assets behind the launcher, injected into a copy of the stripped Node at `file`. */
function writeBinary(assetMap, file) {
  const blob = path.join(work, "sea-prep.blob");
  const seaConfig = path.join(work, "sea-config.json");
  fs.writeFileSync(seaConfig, JSON.stringify({ main: path.join(root, "scripts/sea/launcher.cjs"), output: blob, ...SEA_OPTIONS, assets: assetMap }));
  quiet(nodeBin, ["--experimental-sea-config", seaConfig]);
  fs.copyFileSync(strippedNode(), file);
  fs.chmodSync(file, 0o755);
  quiet(nodeBin, [path.join(root, "node_modules/postject/dist/cli.js"), file, "NODE_SEA_BLOB", blob, "--sentinel-fuse", FUSE]);
}

/**
 * Runs the binary once in a temporary home with MCPBOX_SEA_PRECOMPILE=1 (the launcher compiles every chunk, runs
 * none) and returns Node's compile-cache entries: the tag of their folder without its uid, the entry of each chunk
 * (Node names an ESM entry by the CRC-32 of its type byte 1 and the module's URL, here the launcher's fixed
 * file:///mcpbox/<build>/<chunk>) and the files. Undefined where Node names the folder without a uid (Windows).
 * Fails the build when the names no longer match, rather than shipping a cache no start would use.
 */
function precompile(bin) {
  if (typeof process.getuid !== "function") return undefined;
  const home = path.join(work, "home");
  // a clean environment: NODE_OPTIONS flags would change the V8 flags hash, hence the folder (no user run has them)
  const r = spawnSync(bin, [], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, MCPBOX_HOME: home, MCPBOX_SEA_PRECOMPILE: "1" }, encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) fail(`precompiling the chunks failed (exit ${r.status}): ${r.stderr || r.error}`);
  const cacheDir = path.join(home, "cache", "compile");
  const tags = fs.readdirSync(cacheDir);
  const suffix = `-${process.getuid()}`;
  if (tags.length !== 1 || !tags[0].endsWith(suffix)) fail(`unexpected compile cache folders: ${tags.join(", ")}`);
  const folder = path.join(cacheDir, tags[0]);
  const made = new Set(fs.readdirSync(folder));
  const chunks = files.filter((f) => f.endsWith(".mjs"));
  const entries = {};
  const found = {};
  let bytes = 0;
  for (const f of chunks) {
    const key = crc32(`file:///mcpbox/${hash}/${f}`, crc32(Buffer.from([1]))).toString(16);
    const name = made.has(key) ? key : made.has(key.padStart(8, "0")) ? key.padStart(8, "0") : undefined;
    if (!name) continue;
    entries[f] = name;
    found[name] = path.join(folder, name);
    bytes += fs.statSync(found[name]).size;
  }
  if (!entries[entry] || Object.keys(entries).length < chunks.length * 0.9) {
    fail(`the compile cache has entries for ${Object.keys(entries).length} of ${chunks.length} chunks: Node's entry names changed? (scripts/build.mjs precompile)`);
  }
  return { tag: tags[0].slice(0, -suffix.length), entries, files: found, folder, bytes };
}

function fail(message) {
  process.stderr.write(`build: ${message}\n`);
  process.exit(1);
}

async function buildAllIfAsked() {
  if (!all) return;
  const { buildAll } = await import("./sea/cross.mjs");
  await buildAll({ root, cache, version, log, seaOptions: SEA_OPTIONS }).catch((e) => {
    process.stderr.write(`build: ${e.message}\n`);
    process.exit(1);
  });
}

/** The stamp ties the input hash to this very file, so a concurrent build's binary is never taken for ours. */
function stampOf(h, st) {
  return `${h} ${st.ino} ${st.size} ${st.mtimeMs}`;
}

function upToDate(h) {
  try {
    return fs.readFileSync(stamp, "utf8") === stampOf(h, fs.statSync(out));
  } catch {
    return false;
  }
}

/** Node 24 without its symbols, kept between builds (stripping takes seconds). */
function strippedNode() {
  const key = createHash("sha256").update(`${nodeBin}:${node.size}:${node.mtimeMs}`).digest("hex");
  const cached = path.join(cache, `node-${key.slice(0, 16)}`);
  if (fs.existsSync(cached)) return cached;
  const tmpNode = `${cached}.${process.pid}.tmp`;
  fs.copyFileSync(nodeBin, tmpNode);
  fs.chmodSync(tmpNode, 0o755);
  try {
    execFileSync("strip", [tmpNode], { stdio: "ignore" });
  } catch {
    log("`strip` is not available: the binary keeps its symbols");
  }
  fs.renameSync(tmpNode, cached);
  return cached;
}

/** Folders of builds that were killed (an hour old: no build takes that long). */
function removeStaleBuildFolders() {
  if (!fs.existsSync(cache)) return;
  for (const name of fs.readdirSync(cache)) {
    const p = path.join(cache, name);
    if (/^build-\d+$|\.tmp$/.test(name) && Date.now() - fs.statSync(p).mtimeMs > 3600_000) fs.rmSync(p, { recursive: true, force: true });
  }
}

/** Hash of named files (name → path) and extra strings. */
function hashOf(files, extra) {
  const h = createHash("sha256");
  for (const x of extra) h.update(`${x}\0`);
  for (const [name, p] of Object.entries(files)) h.update(`${name}\0`).update(fs.readFileSync(p)).update("\0");
  return h.digest("hex").slice(0, 16);
}

/** Runs a tool; its chatter (postject's LIEF warnings) is shown only when it fails. */
function quiet(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    process.stderr.write(`${e.stdout ?? ""}${e.stderr ?? ""}build: ${path.basename(args[0])} failed (exit ${e.status})\n`);
    process.exit(1);
  }
}
