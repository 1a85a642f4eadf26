/**
 * The key of the answers record names the build that gave them (answer-record.ts): code upgraded in place at the
 * same path (the npm package's one file, a rebuilt tree) is another build, so it never gives the old code's answers.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildIdentity } from "./answer-record.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-build-id-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("buildIdentity", () => {
  it("changes when the code at the same URL is replaced (an upgrade in place)", () => {
    const file = path.join(dir, "mcpbox.mjs");
    fs.writeFileSync(file, "// version 1\n");
    fs.utimesSync(file, new Date(1_000_000_000_000), new Date(1_000_000_000_000));
    const url = pathToFileURL(file).href;
    const before = buildIdentity(url);
    expect(buildIdentity(url)).toBe(before); // the same code: the same key
    fs.rmSync(file);
    fs.writeFileSync(file, "// version 2, fixed\n"); // npm replaces the file
    fs.utimesSync(file, new Date(1_000_000_000_000), new Date(1_000_000_000_000));
    expect(buildIdentity(url)).not.toBe(before); // without the fix: the URL alone, the same
  });

  it("is the URL (and version) where no file is behind it: the single executable's URL names its build", () => {
    const a = buildIdentity("file:///mcpbox/0123abcd/main.mjs");
    expect(a).toContain("file:///mcpbox/0123abcd/main.mjs");
    expect(a).not.toBe(buildIdentity("file:///mcpbox/4567ef01/main.mjs"));
  });
});
