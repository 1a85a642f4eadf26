/**
 * dist/mcpbox's V8 startup snapshot (scripts/sea/snapshot.mjs, probe.cjs): a snapshot bundle whose top level reads
 * the process's state fails the build, chunks that would hold a second copy of a snapshot package fail it, an entry
 * point the snapshot does not have fails it; and this tree's snapshot build (MCPBOX_SNAPSHOT=1) gives chunks that hold
 * none of the SDK's or zod's code.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as esbuild from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a build script, plain JavaScript
import { SNAPSHOT_ENTRIES, checkOneCopy, fromSnapshot, packagesOf } from "../scripts/sea/snapshot.mjs";
// @ts-expect-error: a build script, plain JavaScript
import { bundle, startupSnapshot } from "../scripts/sea/bundle.mjs";

const REPO = path.resolve(import.meta.dirname, "..");
const NODE = fs.realpathSync(path.join(REPO, "node_modules", ".bin", "node"));
const PROBE = path.join(REPO, "scripts", "sea", "probe.cjs");
let tmp: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-snapshot-")));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function probe(source: string): { reads: string[]; names: Record<string, string[]> } {
  const file = path.join(tmp, `probe-${Math.random().toString(36).slice(2)}.cjs`);
  fs.writeFileSync(file, source);
  return JSON.parse(execFileSync(NODE, [PROBE, file], { encoding: "utf8" }));
}

const REGISTER = 'globalThis[Symbol.for("mcpbox.snapshot")] = { x: { a: 1, b: 2 } };';

describe("the snapshot bundle's probe", () => {
  it("gives the export names of what the bundle registers and no reads for a pure bundle", () => {
    expect(probe(`const t = new Date(0).getTime() + Math.max(1, 2);\n${REGISTER}`)).toEqual({ reads: [], names: { x: ["a", "b"] } });
  });

  it.each([
    ["process.env.HOME", "process.env"],
    ["process.argv.length", "process.argv"],
    ["process.cwd()", "process.cwd()"],
    ["Date.now()", "Date.now()"],
    ["new Date()", "new Date()"],
    ["Math.random()", "Math.random()"],
    ["require('node:os').homedir()", "os.homedir()"],
    ["require('node:os').hostname()", "os.hostname()"],
    ["require('node:crypto').randomUUID()", "crypto.randomUUID()"],
    ["globalThis.crypto.getRandomValues(new Uint8Array(4))", "globalThis.crypto.getRandomValues()"],
    ["performance.now()", "performance.now()"],
    ["process.hrtime.bigint()", "process.hrtime.bigint()"],
    ["process.pid", "process.pid"],
    ["process.getuid()", "process.getuid()"],
  ])("reports %s at the top level", (expr, what) => {
    const { reads } = probe(`const v = ${expr};\n${REGISTER}`);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads[0]).toContain(what);
  });

  it("does not report a read inside a function the top level only defines", () => {
    expect(probe(`function later() { return process.env.HOME + Date.now(); }\n${REGISTER}`).reads).toEqual([]);
  });
});

describe("the chunks and the snapshot", () => {
  it("an import of a snapshot package becomes the registry's names; an entry point it does not have fails the build", async () => {
    const build = (contents: string) =>
      esbuild.build({
        stdin: { contents, resolveDir: REPO, loader: "js" },
        bundle: true,
        write: false,
        format: "esm",
        platform: "node",
        logLevel: "silent",
        plugins: [fromSnapshot({ zod: ["default", "object", "string"] })],
      });
    const out = (await build('import { object } from "zod"; export const o = object;')).outputFiles[0]!.text;
    expect(out).toContain('Symbol.for("mcpbox.snapshot")');
    expect(out).not.toMatch(/ZodObject/);
    await expect(build('import * as c from "zod/v4/core"; export const x = c;')).rejects.toThrow(/zod\/v4\/core is not in the startup snapshot/);
  });

  it("a package in both the chunks and the snapshot fails the build", () => {
    const chunks = { inputs: { "node_modules/zod/v4/classic/schemas.js": {}, "src/cli/main.ts": {} }, outputs: {} };
    expect(() => checkOneCopy(chunks, new Set(["node_modules/zod"]))).toThrow(/both hold node_modules\/zod/);
    expect(() => checkOneCopy(chunks, new Set(["node_modules/jose"]))).not.toThrow();
    expect([...packagesOf({ inputs: { "node_modules/a/node_modules/@s/b/x.js": {}, "node_modules/c/y.js": {} } })]).toEqual(["node_modules/a/node_modules/@s/b", "node_modules/c"]);
  });

  // the build side of MCPBOX_SNAPSHOT=1 on this tree, so the option keeps building while the program changes (an
  // entry point the snapshot lacks, a package in both, a read of the process's state at load all fail here)
  it("this tree's snapshot bundle loads without reading the process's state, and its chunks hold none of the SDK's or zod's code", async () => {
    const snapshot = await startupSnapshot({ root: REPO, outdir: path.join(tmp, "snapshot"), nodeBin: NODE });
    expect(Object.keys(snapshot.names).sort()).toEqual([...SNAPSHOT_ENTRIES].sort());
    expect(snapshot.packages.has("node_modules/zod")).toBe(true);
    const { files } = await bundle({ root: REPO, outdir: path.join(tmp, "app"), version: "0.0.0-test", snapshot });
    const text = (files as string[]).filter((f) => f.endsWith(".mjs")).map((f) => fs.readFileSync(path.join(tmp, "app", f), "utf8")).join("\n");
    expect(text).toContain('Symbol.for("mcpbox.snapshot")');
    // what zod's schema classes are made with and named by (a build without the snapshot has both), and a method
    // name only the SDK's protocol schemas spell as a literal
    for (const code of ["$constructor", '"ZodObject"', '"notifications/initialized"']) expect(text).not.toContain(code);
  }, 120_000);
});
