import fs from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { cacheFolder, strippedTypeScript } from "./ts-cache.ts";

const TS = "const n: number = 1;\nexport default { servers: {} } satisfies object;\n";

describe("stripped TypeScript cache", () => {
  it("strips once per content and then reads the cached module", () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-ts-cache-"));
    const strip = vi.fn(stripTypeScriptTypes);
    const first = strippedTypeScript(TS, strip, folder);
    expect(first).toContain("const n         = 1;"); // types blanked: columns unchanged
    expect(strippedTypeScript(TS, strip, folder)).toBe(first);
    expect(strip).toHaveBeenCalledTimes(1);
    strippedTypeScript(TS.replace("1", "2"), strip, folder);
    expect(strip).toHaveBeenCalledTimes(2);
    const files = fs.readdirSync(folder);
    expect(files).toHaveLength(2);
    expect(files.every((f) => /^[0-9a-f]{64}\.mjs$/.test(f))).toBe(true);
    expect(fs.statSync(path.join(folder, files[0]!)).mode & 0o777).toBe(0o600);
  });

  it("works without a usable cache folder, and lets the stripper's errors through", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-ts-cache-"));
    const blocked = path.join(dir, "a-file");
    fs.writeFileSync(blocked, "");
    expect(strippedTypeScript(TS, stripTypeScriptTypes, blocked)).toContain("export default");
    expect(() => strippedTypeScript("enum E { A }\nexport default E;\n", stripTypeScriptTypes, dir)).toThrow();
  });

  it("prints no experimental warning of Node's stripper", () => {
    const emit = vi.spyOn(process, "emitWarning");
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-ts-cache-"));
    const strip = (source: string, options: { mode: "strip" }) => {
      process.emitWarning("stripTypeScriptTypes is an experimental feature", "ExperimentalWarning");
      return stripTypeScriptTypes(source, options);
    };
    strippedTypeScript(TS, strip, folder);
    expect(emit).not.toHaveBeenCalled();
    emit.mockRestore();
  });

  it("lives under $MCPBOX_HOME/cache/ts", () => {
    expect(cacheFolder({ MCPBOX_HOME: "/h" })).toBe("/h/cache/ts");
  });
});
