/**
 * The V8 startup snapshot of dist/mcpbox (issue 15): the MCP SDK and zod build hundreds of objects (z.object() schemas)
 * when they load, 60-80 ms CPU of every serve start. With a snapshot they are built once, at build time, and every start
 * deserializes the finished heap instead.
 * 1. snapshotBundle(): one CommonJS file (a snapshot can hold one script) with every entry point of SNAPSHOT_ENTRIES,
 *    which stores their namespaces on globalThis[Symbol.for("mcpbox.snapshot")], then probe.cjs runs it under the same
 *    Node and records what its top level read of the process's state (environment, argv, cwd, time, randomness, the
 *    user, the host): anything read there would be the build machine's value forever, so any read fails the build.
 *    The probe also gives each namespace's export names.
 * 2. fromSnapshot(): in the ESM chunks, an import of these packages becomes a module re-exporting the registry's names.
 * 3. checkOneCopy(): no chunk may hold code of a package the snapshot holds (two zods: instanceof and registries
 *    disagree), nor may a chunk import one of them by an entry point the snapshot does not have.
 * The launcher runs the file at build time (useSnapshot) and the program's chunks find the packages already there.
 *
 * Off by default (`MCPBOX_SNAPSHOT=1 npm run build` turns it on), because of what it costs every other start. A/B on
 * 2026-12-02, interleaved, same tree, load 4-9 (medians; CPU = user + system):
 *   serve (5 servers) -> cached tools/list: CPU 300 -> 230 ms, wall 290 -> 247 ms (costs bench at load 7-9: 479 -> 235)
 *   --version: CPU 30 -> 60 ms, wall 51 -> 78 ms, RSS 43 -> 68 MB;  validate (20 servers): CPU 80 -> 110 ms, wall 94 -> 128
 *   serve RSS, 10 servers after idle: 87 -> 104 MB (private 36 -> 49);  an egress proxy: RSS 54 -> 79 MB (private 13 -> 32)
 * Node copies the snapshot out of the executable into every process (SnapshotData::FromBlob: a 6.7 MB mapping and ~4 MB
 * of malloc) and deserializes the whole heap, the SDK's 8.3 MB of objects included, whether the command uses them or
 * not: 10.5k page faults at start against 2.8k (node --snapshot-blob: 5.9k for an empty snapshot).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as esbuild from "esbuild";

/** Every entry point of these packages the program imports (src/); an import of any other fails the build. */
export const SNAPSHOT_ENTRIES = ["@modelcontextprotocol/server", "@modelcontextprotocol/server/stdio", "@modelcontextprotocol/client", "zod"];
const PACKAGES = /^(zod|@modelcontextprotocol\/(server|client|core))(\/|$)/;
export const REGISTRY = 'Symbol.for("mcpbox.snapshot")';

/** Builds and probes the snapshot bundle: { file, names: entry -> export names, packages: package folders it holds }. */
export async function snapshotBundle({ root, outdir, nodeBin, plugins = [] }) {
  fs.mkdirSync(outdir, { recursive: true });
  const lines = SNAPSHOT_ENTRIES.map((e, i) => `import * as m${i} from ${JSON.stringify(e)};`);
  lines.push(`globalThis[${REGISTRY}] = Object.freeze({ ${SNAPSHOT_ENTRIES.map((e, i) => `${JSON.stringify(e)}: m${i}`).join(", ")} });`);
  const file = path.join(outdir, "snapshot.cjs");
  const result = await esbuild.build({
    absWorkingDir: root,
    stdin: { contents: lines.join("\n"), resolveDir: root, sourcefile: "snapshot-entry.mjs", loader: "js" },
    outfile: file,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node24",
    minify: true,
    keepNames: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    define: { "process.env.NODE_ENV": '"production"' },
    plugins,
  });
  let probe;
  try {
    probe = JSON.parse(execFileSync(nodeBin, [path.join(path.dirname(new URL(import.meta.url).pathname), "probe.cjs"), file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  } catch (e) {
    throw new Error(`the snapshot bundle does not load: ${e.stderr || e.message}`);
  }
  if (probe.reads.length > 0) {
    throw new Error(`the snapshot bundle reads the process's state at load (it would be the build machine's, frozen in every binary):\n${probe.reads.join("\n")}`);
  }
  return { file, names: probe.names, packages: packagesOf(result.metafile) };
}

/** The package folders of a metafile's inputs (node_modules/zod, node_modules/a/node_modules/@scope/name). */
export function packagesOf(metafile) {
  const found = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const p = input.replace(/\\/g, "/");
    const at = p.lastIndexOf("node_modules/"); // the innermost package
    if (at < 0 || (at > 0 && p[at - 1] !== "/")) continue;
    const parts = p.slice(at + "node_modules/".length).split("/");
    found.add(`${p.slice(0, at)}node_modules/${parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]}`);
  }
  return found;
}

/** esbuild plugin for the ESM chunks: the snapshot's entry points re-export the registry's namespaces. */
export function fromSnapshot(names) {
  return {
    name: "from-snapshot",
    setup(build) {
      build.onResolve({ filter: PACKAGES }, (args) => {
        if (!Object.hasOwn(names, args.path)) {
          return { errors: [{ text: `${args.path} is not in the startup snapshot: add it to SNAPSHOT_ENTRIES in scripts/sea/snapshot.mjs` }] };
        }
        return { path: args.path, namespace: "snapshot" };
      });
      build.onLoad({ filter: /.*/, namespace: "snapshot" }, (args) => {
        const exported = names[args.path];
        const bad = exported.filter((n) => n !== "default" && !/^[A-Za-z_$][\w$]*$/.test(n));
        if (bad.length > 0) return { errors: [{ text: `${args.path} exports names no binding can have: ${bad.join(", ")}` }] };
        const spec = JSON.stringify(args.path);
        const plain = exported.filter((n) => n !== "default");
        const lines = [
          `const m = globalThis[${REGISTRY}]?.[${spec}];`,
          `if (!m) throw new Error(${JSON.stringify(`${args.path} is missing from this executable's startup snapshot`)});`,
        ];
        if (plain.length > 0) lines.push(`export const { ${plain.join(", ")} } = m;`);
        if (exported.includes("default")) lines.push("export default m.default;");
        return { contents: lines.join("\n"), loader: "js" };
      });
    },
  };
}

/** Fails when a chunk holds code of a package the snapshot holds: the program would have two copies of it. */
export function checkOneCopy(chunksMetafile, snapshotPackages) {
  const twice = [...packagesOf(chunksMetafile)].filter((p) => snapshotPackages.has(p));
  if (twice.length > 0) {
    throw new Error(`the chunks and the startup snapshot both hold ${twice.join(", ")}: import them through SNAPSHOT_ENTRIES (scripts/sea/snapshot.mjs) or keep them out of the snapshot`);
  }
}
