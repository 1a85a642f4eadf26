/** esbuild: src/cli/main.ts → ESM chunks for the single executable. Returns the entry and every output file. */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
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

/** splitting: false makes one file (the npm package); shebang: a first line for an npm bin. */
export async function bundle({ root, outdir, version, target = "node24", splitting = true, shebang = false }) {
  fs.rmSync(outdir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: "src/cli/main.ts" },
    outdir,
    bundle: true,
    splitting,
    format: "esm",
    platform: "node",
    target,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    minify: true,
    keepNames: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    // monitor.ts sets NODE_ENV for source runs; in the bundle it is already the constant "production", as meant
    logOverride: { "assign-to-define": "silent" },
    banner: { js: shebang ? `#!/usr/bin/env node\n${BANNER}` : BANNER },
    define: { __MCPBOX_VERSION__: JSON.stringify(version), "process.env.DEV": '"false"', "process.env.NODE_ENV": '"production"' },
    jsx: "automatic",
    // ssh2's optional addons (dockerode works without them); typescript is only an optional peer of loaders
    external: ["cpu-features", "*.node", "typescript"],
    alias: {
      "react-devtools-core": path.join(root, "scripts/sea/react-devtools-core.mjs"),
      // jiti's ESM entry loads babel through a runtime createRequire that a bundle cannot follow
      jiti: path.join(root, "node_modules/jiti/lib/jiti.cjs"),
      // jsonc-parser's main is a UMD module whose require() calls a bundle cannot follow; its ESM build bundles
      "jsonc-parser": path.join(root, "node_modules/jsonc-parser/lib/esm/main.js"),
      // every package's debug output off, whatever DEBUG says: docker-modem's would print secrets (debug-off.cjs)
      debug: path.join(root, "scripts/sea/debug-off.cjs"),
    },
    plugins: [missingCommands(root), cjsDynamicImports(root), zodEnglishOnly(), noSchemaValidator(root), lazyEngineExtras(), builtinsByRequire()],
  });
  if (splitting) await compileEagerly(root, result.metafile);
  const files = Object.keys(result.metafile.outputs).map((f) => path.relative(outdir, path.resolve(root, f)));
  return { entry: "main.mjs", files: files.map((f) => f.split(path.sep).join("/")).sort(), metafile: result.metafile };
}

/**
 * Commands are written in parallel by several people; a command module that does not exist yet becomes a stub that
 * says so instead of failing the whole build. MCPBOX_BUILD_LENIENT=1 stubs every missing relative module (a
 * development aid while others' work is half-committed; never for a release).
 */
function missingCommands(root) {
  const lenient = process.env.MCPBOX_BUILD_LENIENT === "1";
  return {
    name: "missing-commands",
    setup(build) {
      build.onResolve({ filter: lenient ? /^\.\.?\// : /^\.\/commands\/[a-z-]+\.ts$/ }, (args) => {
        const file = path.resolve(args.resolveDir, args.path);
        if (fs.existsSync(file) || !args.importer.startsWith(path.join(root, "src"))) return undefined;
        process.stderr.write(`build: warning: ${path.relative(root, file)} does not exist yet; stubbed\n`);
        return { path: file, namespace: "missing-module" };
      });
      build.onLoad({ filter: /.*/, namespace: "missing-module" }, (args) => {
        const what = JSON.stringify(`${path.basename(args.path, ".ts")} is not implemented in this build`);
        // a command gets a run() that says so; anything else is an empty CommonJS module (named imports are undefined)
        const contents = args.path.includes(`${path.sep}commands${path.sep}`)
          ? `export async function run() { throw new Error(${what}); }`
          : "module.exports = {};";
        return { contents, loader: "js" };
      });
    },
  };
}

/**
 * With code splitting, esbuild gives `await import("cjs-package")` only a `default` export (evanw/esbuild#3245), so
 * `const { x } = await import("cosmiconfig")` breaks. Such imports go through a wrapper with Node's shape instead:
 * default = module.exports, plus one named export per property (names read at build time).
 */
function cjsDynamicImports(root) {
  const requireFromRoot = createRequire(path.join(root, "package.json"));
  return {
    name: "cjs-dynamic-imports",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.kind !== "dynamic-import" || args.path.startsWith("node:") || args.pluginData?.direct) return undefined;
        const resolved = await build.resolve(args.path, { kind: "import-statement", resolveDir: args.resolveDir, pluginData: { direct: true } });
        if (resolved.errors.length > 0 || resolved.external || !isCommonJs(resolved.path)) return undefined;
        return { path: args.path, namespace: "cjs-dynamic", pluginData: { resolveDir: args.resolveDir } };
      });
      build.onLoad({ filter: /.*/, namespace: "cjs-dynamic" }, (args) => {
        const names = Object.keys(requireFromRoot(args.path)).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== "default");
        const spec = JSON.stringify(args.path);
        const lines = [`const m = require(${spec});`, "export default m;"];
        for (const n of names) lines.push(`export const ${n} = m[${JSON.stringify(n)}];`);
        return { contents: lines.join("\n"), loader: "js", resolveDir: args.pluginData.resolveDir };
      });
    },
  };
}

function isCommonJs(file) {
  if (file.endsWith(".cjs")) return true;
  if (!file.endsWith(".js")) return false;
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const pkg = path.join(dir, "package.json");
    if (fs.existsSync(pkg)) return JSON.parse(fs.readFileSync(pkg, "utf8")).type !== "module";
  }
  return true;
}

/**
 * zod's `z.locales` holds error messages in 40 languages (258 KB of its 459 KB); mcpbox speaks English only, and
 * zod registers English from locales/en.js directly. Dropping the rest makes the config code load about 25% faster.
 */
function zodEnglishOnly() {
  return {
    name: "zod-english-only",
    setup(build) {
      build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        args.importer.includes(`${path.sep}zod${path.sep}`) ? { path: path.resolve(args.resolveDir, args.path), namespace: "zod-locales" } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
        contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), "en.js"))};`,
        loader: "js",
        resolveDir: path.dirname(args.path),
      }));
    },
  };
}

/**
 * The SDK's client and server packages each bundle their own ajv (with ajv-formats and three dialects: 158 KB of the
 * 390 KB each package adds to serve), reached only through `DefaultJsonSchemaValidator` of their `_shims` module, the
 * default validator of `fromJsonSchema` and of `McpServer.elicitInput`. mcpbox calls neither: it passes elicitation
 * answers on as the client gave them (the server that asked checks them) and validates no tool's JSON Schema itself.
 * Both copies were loaded and evaluated at every start for nothing (issue 15). Here `_shims` keeps its other exports
 * and its validator says what happened if anything ever asks it; the build fails when a shims module exports names
 * this does not give (an SDK update), and src/bundle-omissions.test.ts fails when mcpbox's code calls either function.
 */
function noSchemaValidator(root) {
  const given = {
    client: ["CORS_IS_POSSIBLE", "DefaultJsonSchemaValidator"],
    server: ["DefaultJsonSchemaValidator", "process"],
  };
  const extra = { client: "export const CORS_IS_POSSIBLE = false;", server: 'import process from "node:process";\nexport { process };' };
  return {
    name: "no-schema-validator",
    setup(build) {
      build.onResolve({ filter: /^@modelcontextprotocol\/(client|server)\/_shims$/ }, async (args) => {
        if (args.pluginData?.real) return undefined;
        const side = args.path.split("/")[1];
        const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { real: true } });
        if (real.errors.length > 0) return undefined; // esbuild reports it
        const exported = [...fs.readFileSync(real.path, "utf8").matchAll(/export\s*\{([^}]*)\}/g)]
          .flatMap((m) => m[1].split(","))
          .map((e) => e.trim().split(/\s+as\s+/).pop())
          .filter(Boolean)
          .sort();
        if (JSON.stringify(exported) !== JSON.stringify(given[side])) {
          throw new Error(`${real.path} exports ${exported.join(", ")}, not ${given[side].join(", ")}: update noSchemaValidator in scripts/sea/bundle.mjs`);
        }
        return { path: side, namespace: "sdk-shims" };
      });
      build.onLoad({ filter: /.*/, namespace: "sdk-shims" }, (args) => ({
        contents: [
          extra[args.path],
          "export class DefaultJsonSchemaValidator {",
          "  getValidator() {",
          '    throw new Error("mcpbox is built without the MCP SDK\'s JSON Schema validator (scripts/sea/bundle.mjs noSchemaValidator); please report this");',
          "  }",
          "}",
        ].join("\n"),
        loader: "js",
        resolveDir: root,
      }));
    },
  };
}

/**
 * An ESM import of a Node builtin (`import fs from "node:fs"`) makes Node build the builtin's ESM facade, which reads
 * every export once, lazy getters included: node:fs loads fs/promises (and readline with it), node:util its diff and
 * worker code. That is ~8 and ~6 ms CPU of every start (issue 15). The bundle takes builtins through require()
 * instead (the banner's createRequire): esbuild reads a named import as a property at its use, so nothing else loads.
 */
function builtinsByRequire() {
  return {
    name: "builtins-by-require",
    setup(build) {
      // static imports only: with code splitting esbuild gives `await import()` of a CommonJS module only a default
      // export (see cjsDynamicImports), so `(await import("node:sea")).getAsset` would be undefined
      // one stub per importing module (its path ends in the builtin's name, so esbuild never takes it for an .mjs):
      // a stub shared by several modules became a chunk of its own, 12 more files for a start to load
      build.onResolve({ filter: /^node:[a-z_/]+$/ }, (args) =>
        args.kind === "import-statement" ? { path: `${args.importer}|${args.path}`, namespace: "builtin-by-require" } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "builtin-by-require" }, (args) => {
        const spec = args.path.slice(args.path.lastIndexOf("|") + 1);
        const direct = `module.exports = require(${JSON.stringify(spec)});`;
        return { contents: LAZY_PROPERTIES.has(spec) ? viaGetters(spec) : direct, loader: "js" };
      });
    },
  };
}

/**
 * esbuild's __toESM wrapper copies a CommonJS module's properties, reading each one's descriptor, and reading the
 * descriptor of a lazy property of a builtin loads it: node:util's TextDecoder, diff and friends are 34 internal
 * modules, ~6-10 ms CPU at every start for the one `styleText` that src/cli/output.ts imports (issue 15). These
 * builtins are handed over as an object of getters instead (the names only are read at load, never a value). Only
 * for builtins whose functions never use `this` (a method of node:process called on the getter object would get the
 * wrong one).
 */
const LAZY_PROPERTIES = new Set(["node:util"]);

const viaGetters = (spec) =>
  [
    `const m = require(${JSON.stringify(spec)});`,
    "const o = {};",
    "for (const k of Object.getOwnPropertyNames(m)) Object.defineProperty(o, k, { get: () => m[k], enumerable: true });",
    "module.exports = o;",
  ].join("\n");

/**
 * dockerode loads BuildKit sessions (@grpc/grpc-js, @grpc/proto-loader, protobufjs) and docker-modem loads ssh2 as
 * soon as they are loaded, though mcpbox needs ssh2 only for an ssh:// DOCKER_HOST and BuildKit never: 700 KB of
 * modules run at every start of serve, tools, ps and the reaper (issue 15); docker-modem's http.js loads https and tls.
 * commander loads node:child_process (and with it node:net) for executable subcommands, which mcpbox has none of:
 * ~5 ms CPU of every start, --help included.
 * Each is required when first called instead, and BuildKit is left out of the bundle. A dependency update that
 * changes these lines fails the build here rather than silently loading them again.
 */
const NOT_BUILT = (what) => `${what} is not built into mcpbox (scripts/sea/bundle.mjs); please report this`;

function lazyEngineExtras() {
  const lazy = [
    // BuildKit (buildImage with version "2", docker.followProgress): gRPC, protobufjs and their kin, 400 KB of the
    // engine chunk every engine command loaded. mcpbox builds with the classic builder and follows progress with
    // docker.modem.followProgress (src/bundle-omissions.test.ts fails on a use of either); asked anyway, they say so
    { file: /[\\/]node_modules[\\/]dockerode[\\/]lib[\\/]docker\.js$/, from: "withSession = require('./session'),", to: `withSession = function () { throw new Error(${JSON.stringify(NOT_BUILT("BuildKit sessions (buildImage version 2)"))}); },` },
    { file: /[\\/]node_modules[\\/]dockerode[\\/]lib[\\/]docker\.js$/, from: "var buildkit = require('./buildkit');", to: `throw new Error(${JSON.stringify(NOT_BUILT("docker.followProgress (BuildKit output)"))});` },
    { file: /[\\/]node_modules[\\/]docker-modem[\\/]lib[\\/]modem\.js$/, from: "ssh = require('./ssh'),", to: "ssh = function () { return require('./ssh').apply(this, arguments); }," },
    // its debug output is off (debug-off.cjs), but the argument of this one was still made: a util.inspect of every
    // request's options, 0.05-0.13 ms of CPU per engine request (0.2-0.3 ms the first), ~20 requests at a cold start
    { file: /[\\/]node_modules[\\/]docker-modem[\\/]lib[\\/]modem\.js$/, from: "  debug('Sending: %s', util.inspect(options, {\n    showHidden: true,\n    depth: null\n  }));\n", to: "" },
    // docker-modem's redirect wrapper takes https at load (tls and https: ~4 MB and a few ms in every engine command,
    // hmem's measure); only a tcp+TLS DOCKER_HOST uses it. It only ever calls the prototype's request, and assigns its
    // own request on an object inheriting from it, hence the setter
    {
      file: /[\\/]node_modules[\\/]docker-modem[\\/]lib[\\/]http\.js$/,
      from: "var nativeHttps = require('https'),",
      to: "var nativeHttps = { get request() { return require('https').request; }, set request(v) { Object.defineProperty(this, 'request', { value: v, writable: true, enumerable: true, configurable: true }); } },",
    },
    {
      file: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/,
      from: "const childProcess = require('node:child_process');",
      to: "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };",
    },
  ];
  return {
    name: "lazy-engine-extras",
    setup(build) {
      build.onLoad({ filter: /[\\/](dockerode|docker-modem|commander)[\\/]lib[\\/](docker|modem|http|command)\.js$/ }, (args) => {
        const mine = lazy.filter((x) => x.file.test(args.path));
        if (mine.length === 0) return undefined;
        let text = fs.readFileSync(args.path, "utf8");
        for (const l of mine) {
          if (!text.includes(l.from)) throw new Error(`${args.path} no longer has \`${l.from}\`: update lazyEngineExtras in scripts/sea/bundle.mjs`);
          text = text.replace(l.from, l.to);
        }
        return { contents: text, loader: "js" };
      });
    },
  };
}

/**
 * V8's code cache (Node's compile cache, made at build time and embedded: scripts/build.mjs) holds what was compiled
 * when a module was: its top level and the functions V8 compiles eagerly, not the functions that run later, so every one of those
 * was parsed and compiled again at every start: 38 of validate's 242 M instructions (callgrind, issue 15). V8 compiles a
 * function literal in parentheses eagerly (its "PIFE" heuristic), so the chunks every start runs (the command line,
 * the config and its checks) get their function expressions and arrows parenthesized: the code cache then holds them.
 * Semantics unchanged (a parenthesized function expression is the same function, with the same name and source text).
 */
const EAGER_INPUTS = /^(src[\\/](cli|config|text)[\\/]|src[\\/]errors\.ts$|node_modules[\\/]commander[\\/])/;

async function compileEagerly(root, metafile) {
  const ts = (await import("typescript")).default;
  for (const [out, meta] of Object.entries(metafile.outputs)) {
    if (!out.endsWith(".mjs") || !Object.keys(meta.inputs).some((i) => EAGER_INPUTS.test(i))) continue;
    const file = path.resolve(root, out);
    const text = fs.readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    const at = [];
    const visit = (node) => {
      if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && !ts.isParenthesizedExpression(node.parent)) at.push([node.getStart(source), "("], [node.end, ")"]);
      ts.forEachChild(node, visit);
    };
    visit(source);
    // from the end, so earlier offsets stay right; an opening and a closing never share an offset
    at.sort((a, b) => b[0] - a[0]);
    let result = text;
    for (const [i, c] of at) result = result.slice(0, i) + c + result.slice(i);
    fs.writeFileSync(file, result);
  }
}
