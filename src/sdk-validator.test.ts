/**
 * The single executable is built without the MCP SDK's JSON Schema validator (ajv, bundled twice by the SDK's client
 * and server packages: scripts/sea/bundle.mjs noSchemaValidator, issue 15). The SDK reaches it from two functions
 * only, `McpServer.elicitInput` (it checks the user's answer against the requested schema) and `fromJsonSchema`;
 * mcpbox calls neither. This fails when its code starts to, so the bundle is changed in the same step.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.dirname(new URL(import.meta.url).pathname);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

describe("the SDK's JSON Schema validator", () => {
  it("is reached from none of mcpbox's code (the bundle leaves it out)", () => {
    const uses = sources(SRC).flatMap((file) => {
      const text = fs.readFileSync(file, "utf8");
      return [...text.matchAll(/\b(elicitInput|fromJsonSchema|jsonSchemaValidator|DefaultJsonSchemaValidator)\b/g)].map((m) => `${path.relative(SRC, file)}: ${m[1]}`);
    });
    expect(uses).toEqual([]);
  });
});
