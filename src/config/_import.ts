/**
 * Imports a config module of any supported kind, with "mcpbox" served as a virtual module so the config needs no
 * node_modules (and works from inside the single executable). TypeScript goes through Node's own type stripping
 * (fast); what that cannot run (enums, extensionless imports it cannot guess) falls back to jiti.
 */
import fs from "node:fs";
import { pathToFileURL } from "node:url";
import { defineConfig } from "./define.ts";

const VIRTUAL_URL = "mcpbox:config-api";
const VIRTUAL_SOURCE = "export const defineConfig = (c) => c; export default { defineConfig };";
const TS_EXTENSIONS = [".ts", ".mts", ".cts", "/index.ts"];

let hooksInstalled = false;

export async function importConfigModule(file: string): Promise<unknown> {
  if (file.endsWith(".json")) return JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
  if (process.env.MCPBOX_CONFIG_LOADER !== "jiti" && installHooks()) {
    try {
      return defaultOf(await import(pathToFileURL(file).href));
    } catch (e) {
      if (!isLoaderError(e)) throw e;
    }
  }
  return importWithJiti(file);
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
    },
    load(url, context, next) {
      if (url === VIRTUAL_URL) return { format: "module", source: VIRTUAL_SOURCE, shortCircuit: true };
      return next(url, context);
    },
  });
  hooksInstalled = true;
  return true;
}

async function importWithJiti(file: string): Promise<unknown> {
  const { createJiti } = await import("jiti");
  const jiti = createJiti(file, {
    virtualModules: { mcpbox: { defineConfig, default: { defineConfig } } },
    moduleCache: false,
    fsCache: false,
    interopDefault: true,
  } as Parameters<typeof createJiti>[1]);
  return defaultOf(await jiti.import(file));
}
