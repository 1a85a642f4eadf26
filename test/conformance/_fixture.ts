/**
 * The conformance fixture (test/fixtures/conformance/server.ts, on SDK v2) as mcpbox runs it: a `build:` server whose
 * context is a temp folder holding the fixture's Dockerfile and an esbuild bundle of server.ts (the image then needs
 * no node_modules and no registry). mcpbox tags builds by content, so an unchanged fixture is built once.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { REPO } from "../helpers/gateway.ts";

export const FIXTURE_DIR = path.join(REPO, "test/fixtures/conformance");
export const FIXTURE_SOURCE = path.join(FIXTURE_DIR, "server.ts");

/** Bundles the fixture into `<dir>/server.mjs` (ESM, every dependency inside). */
export async function bundleFixture(dir: string): Promise<string> {
  const outfile = path.join(dir, "server.mjs");
  await build({
    entryPoints: [FIXTURE_SOURCE],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "error",
    legalComments: "none",
    // CommonJS dependencies inside an ESM bundle call require
    banner: { js: 'import { createRequire as __mcpboxRequire } from "node:module"; const require = __mcpboxRequire(import.meta.url);' },
  });
  return outfile;
}

/** A build context for mcpbox: the fixture's Dockerfile and the bundle. Removed by the caller. */
export async function fixtureContext(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-conformance-fixture-"));
  fs.chmodSync(dir, 0o755);
  fs.copyFileSync(path.join(FIXTURE_DIR, "Dockerfile"), path.join(dir, "Dockerfile"));
  await bundleFixture(dir);
  return dir;
}

/** The sandbox.config.json entry of the fixture. */
export function fixtureServer(context: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { build: { context }, timeouts: { startupMs: 120_000, callMs: 60_000 }, ...extra };
}
