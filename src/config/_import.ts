/**
 * Imports a config module of any supported kind, with "mcpbox" served as a virtual module so the config needs no
 * node_modules (and works from inside the single executable). TypeScript goes through Node's own type stripping
 * (fast); what that cannot run (enums, extensionless imports it cannot guess) falls back to jiti.
 * Every file of the config's module graph is checked (the user's own, nobody else can write it) before it runs, and
 * remembered, so that validation can refuse a writable mount of it.
 */
import fs from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { defineConfig } from "./define.ts";
import { assertTrusted } from "./_trust.ts";

const VIRTUAL_URL = "mcpbox:config-api";
const VIRTUAL_SOURCE = "export const defineConfig = (c) => c; export default { defineConfig };";
const TS_EXTENSIONS = [".ts", ".mts", ".cts", "/index.ts"];

let hooksInstalled = false;

/**
 * While jiti loads a config: jiti hands what it need not transform to Node's own require or import from its own
 * module, so the parent says nothing; everything resolved meanwhile counts as the config's.
 */
let jitiRoots: string[] | undefined;

/** file: URL of a module of a config's graph -> the config files (URLs) whose graph it is in. */
const graph = new Map<string, Set<string>>();

function addToGraph(url: string, roots: Iterable<string>) {
  const set = graph.get(url) ?? new Set<string>();
  for (const r of roots) set.add(r);
  graph.set(url, set);
}

/** The local files the config imported while it loaded (itself included), as absolute paths. */
export function importedModules(file: string): string[] {
  const root = pathToFileURL(realOr(file)).href;
  return [...new Set([...graph].filter(([url, roots]) => roots.has(root) && url.startsWith("file:")).map(([url]) => fileURLToPath(url)))];
}

/**
 * Node loads a module under its real path: a config reached through a symlink is keyed by its real path, or its
 * imports would have a parent outside the graph (and go unchecked).
 */
const realOr = (file: string): string => {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
};

/** How many config imports are under way: every file loaded meanwhile is checked, in the graph or not. */
let loading = 0;

export async function importConfigModule(file: string): Promise<unknown> {
  const real = realOr(file);
  const url = pathToFileURL(real).href;
  addToGraph(url, [url]);
  assertTrusted(file);
  if (file.endsWith(".json")) return JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
  // installed for jiti too: what jiti hands to Node's own require is checked by the load hook
  const hooks = installHooks();
  loading++;
  try {
    if (process.env.MCPBOX_CONFIG_LOADER !== "jiti" && hooks) {
      try {
        return defaultOf(await import(url));
      } catch (e) {
        if (!isLoaderError(e)) throw e;
      }
    }
    return await importWithJiti(real);
  } finally {
    loading--;
  }
}

function defaultOf(mod: unknown): unknown {
  return mod && typeof mod === "object" && "default" in mod ? (mod as { default: unknown }).default : mod;
}

/** Errors of the native route that jiti may get past; errors thrown by the config itself are not retried. */
function isLoaderError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof SyntaxError || (typeof code === "string" && code.startsWith("ERR_"));
}

function installHooks(): boolean {
  if (hooksInstalled) return true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = process.getBuiltinModule?.("node:module") as typeof import("node:module") | undefined;
  if (!mod?.registerHooks || !process.features.typescript) return false;
  mod.registerHooks({
    resolve(specifier, context, next) {
      if (specifier === "mcpbox") return { url: VIRTUAL_URL, shortCircuit: true };
      const roots = (context.parentURL === undefined ? undefined : graph.get(context.parentURL)) ?? jitiRoots;
      const resolved = resolveWithTs(specifier, context, next);
      if (roots) addToGraph(resolved.url, roots);
      return resolved;
    },
    load(url, context, next) {
      if (url === VIRTUAL_URL) return { format: "module", source: VIRTUAL_SOURCE, shortCircuit: true };
      // before the file is read: a module that is not the user's own never runs
      if (url.startsWith("file:") && (graph.has(url) || loading > 0)) assertTrusted(fileURLToPath(url));
      return next(url, context);
    },
  });
  hooksInstalled = true;
  return true;
}

type ResolveHook = Parameters<typeof import("node:module").registerHooks>[0]["resolve"] & {};

/** Node's resolution, then the extensions TypeScript lets an import leave out. */
const resolveWithTs: ResolveHook = (specifier, context, next) => {
  try {
    return next(specifier, context);
  } catch (e) {
    if (!/^\.{1,2}\//.test(specifier) || !context.parentURL?.startsWith("file:")) throw e;
    for (const ext of TS_EXTENSIONS) {
      const url = new URL(specifier + ext, context.parentURL);
      if (fs.existsSync(url)) return { url: url.href, shortCircuit: true };
    }
    throw e;
  }
};

async function importWithJiti(file: string): Promise<unknown> {
  const { createJiti } = await import("jiti");
  const options = {
    virtualModules: { mcpbox: { defineConfig, default: { defineConfig } } },
    moduleCache: false,
    fsCache: false,
    interopDefault: true,
  } as Parameters<typeof createJiti>[1];
  const plain = createJiti(file, options);
  const root = pathToFileURL(file).href;
  // jiti evaluates what it transforms itself (Node's hooks never see it): check and record each file before that
  const jiti = createJiti(file, {
    ...options,
    transform: (opts) => {
      if (opts.filename) {
        addToGraph(pathToFileURL(opts.filename).href, [root]);
        assertTrusted(opts.filename);
      }
      return { code: plain.transform(opts) };
    },
  });
  jitiRoots = [root];
  try {
    return defaultOf(await jiti.import(file));
  } finally {
    jitiRoots = undefined;
  }
}
