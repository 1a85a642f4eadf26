/**
 * `npm run build -- --all`: dist/mcpbox-<os>-<arch> for every target in targets.mjs, and SHA256SUMS beside them.
 * 1. The program is bundled once (target node22) and made into one SEA blob by the host's copy of the same Node;
 *    the blob is the same for every platform (no snapshot, no code cache).
 * 2. Each target's Node binary comes from its npm package (targets.mjs) and is prepared for injection: ELF stripped,
 *    PE without its now-invalid Authenticode signature; postject injects the blob (Mach-O: the NODE_SEA segment).
 * 3. Mach-O gets an ad-hoc signature (macho-sign.mjs), or macOS on arm64 would not run it.
 * Skipped when nothing changed; each output is written beside its final name and renamed in.
 */
import { createHash } from "node:crypto";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { bundle } from "./bundle.mjs";
import { assetFiles } from "./assets.mjs";
import { adhocSign } from "./macho-sign.mjs";
import { withoutSignature } from "./pe.mjs";
import { CROSS_NODE_VERSION, TARGETS, fileName, hostTarget, nodeBinary } from "./targets.mjs";

const run = promisify(execFile);
const FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** seaOptions: the SEA config options of dist/mcpbox (build.mjs SEA_OPTIONS: execArgv and all), the same for every target */
export async function buildAll({ root, cache, version, log, seaOptions }) {
  const work = path.join(cache, `cross-${process.pid}`);
  const dist = path.join(root, "dist");
  const stamp = path.join(dist, ".mcpbox-all.hash");
  process.on("exit", () => fs.rmSync(work, { recursive: true, force: true }));
  const appDir = path.join(work, "app");
  fs.mkdirSync(work, { recursive: true });
  const { entry, files } = await bundle({ root, outdir: appDir, version, target: "node22" });

  const assets = { "mcpbox/manifest.json": path.join(work, "manifest.json") };
  for (const f of files) assets[`mcpbox/app/${f}`] = path.join(appDir, f);
  for (const key of assetFiles(root)) assets[key] = path.join(root, key);
  const inputs = { launcher: path.join(root, "scripts/sea/launcher.cjs"), ...assets };
  delete inputs["mcpbox/manifest.json"];
  for (const f of ["cross.mjs", "macho-sign.mjs", "pe.mjs", "targets.mjs"]) inputs[f] = path.join(root, "scripts/sea", f);
  const hash = hashOf(inputs, [version, CROSS_NODE_VERSION, ...TARGETS.map((t) => t.integrity), JSON.stringify(seaOptions)]);
  if (upToDate(stamp, dist, hash)) {
    log(`dist/mcpbox-* are up to date (${hash})`);
    return;
  }
  const sha256 = Object.fromEntries(files.map((f) => [f, sha256Of(fs.readFileSync(path.join(appDir, f)))]));
  fs.writeFileSync(assets["mcpbox/manifest.json"], JSON.stringify({ hash, version, entry, files, sha256 }));

  const nodeCache = path.join(cache, "node");
  const nodes = Object.fromEntries(TARGETS.map((t) => [t.id, nodeBinary(t, nodeCache, log)]));
  const blob = path.join(work, "sea-prep.blob");
  const seaConfig = path.join(work, "sea-config.json");
  fs.writeFileSync(
    seaConfig,
    JSON.stringify({ main: inputs.launcher, output: blob, ...seaOptions, assets }),
  );
  try {
    execFileSync(nodes[hostTarget().id], ["--experimental-sea-config", seaConfig], { stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    throw new Error(`making the SEA blob failed: ${e.stderr || e.message}`);
  }
  log(`wrote the SEA blob with Node ${CROSS_NODE_VERSION}`);

  // two at a time: postject (LIEF) is single-threaded and the Mach-O ones take half a minute each
  const queue = [...TARGETS].sort((a, b) => (a.format === "macho" ? -1 : 0) - (b.format === "macho" ? -1 : 0));
  const workers = Array.from({ length: 2 }, async () => {
    for (let t = queue.shift(); t; t = queue.shift()) await buildTarget(t, { root, dist, work, blob, node: nodes[t.id], log });
  });
  await Promise.all(workers);

  const sums = TARGETS.map((t) => `${sha256Of(fs.readFileSync(path.join(dist, fileName(t))))}  ${fileName(t)}\n`).join("");
  fs.writeFileSync(path.join(dist, "SHA256SUMS"), sums);
  fs.writeFileSync(stamp, stampOf(hash, dist));
  log(`wrote ${TARGETS.length} executables and dist/SHA256SUMS, build ${hash}`);
}

async function buildTarget(t, { root, dist, work, blob, node, log }) {
  const out = path.join(dist, fileName(t));
  const tmp = path.join(work, fileName(t));
  let image = fs.readFileSync(node);
  if (t.format === "pe") image = withoutSignature(image);
  fs.writeFileSync(tmp, image, { mode: 0o755 });
  image = undefined;
  if (t.format === "elf") strip(tmp, t, log);
  const args = [path.join(root, "node_modules/postject/dist/cli.js"), tmp, "NODE_SEA_BLOB", blob, "--sentinel-fuse", FUSE];
  if (t.format === "macho") args.push("--macho-segment-name", "NODE_SEA");
  try {
    await run(process.execPath, args, { maxBuffer: 64 << 20 });
  } catch (e) {
    throw new Error(`postject failed for ${t.id}: ${e.stderr || e.message}`);
  }
  if (t.format === "macho") adhocSign(tmp);
  fs.chmodSync(tmp, 0o755);
  fs.renameSync(tmp, out);
  log(`wrote dist/${fileName(t)} ${(fs.statSync(out).size / 1e6).toFixed(1)} MB`);
}

/** Symbols off (about 18 MB); the host's strip knows x86-64 only, llvm-strip knows every ELF. */
function strip(file, t, log) {
  for (const tool of ["strip", "llvm-strip"]) {
    try {
      execFileSync(tool, [file], { stdio: "ignore" });
      return;
    } catch {
      // not installed, or not for this architecture
    }
  }
  log(`no strip for ${t.id} here (install llvm): its binary keeps its symbols`);
}

const sha256Of = (bytes) => createHash("sha256").update(bytes).digest("hex");

function hashOf(files, extra) {
  const h = createHash("sha256");
  for (const x of extra) h.update(`${x}\0`);
  for (const [name, p] of Object.entries(files)) h.update(`${name}\0`).update(fs.readFileSync(p)).update("\0");
  return h.digest("hex").slice(0, 16);
}

/** The stamp ties the input hash to the very files written (inode, size, mtime of each and of SHA256SUMS). */
function stampOf(hash, dist) {
  const names = [...TARGETS.map(fileName), "SHA256SUMS"];
  return [hash, ...names.map((n) => {
    const st = fs.statSync(path.join(dist, n));
    return `${n}:${st.ino}:${st.size}:${st.mtimeMs}`;
  })].join(" ");
}

function upToDate(stamp, dist, hash) {
  try {
    return fs.readFileSync(stamp, "utf8") === stampOf(hash, dist);
  } catch {
    return false;
  }
}
