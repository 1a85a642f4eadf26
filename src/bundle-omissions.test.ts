/**
 * What the single executable is built without, because mcpbox never uses it (scripts/sea/bundle.mjs, issue 15): the
 * MCP SDK's JSON Schema validator (ajv, bundled twice by the SDK's client and server packages: noSchemaValidator),
 * which the SDK reaches from `McpServer.elicitInput` (it checks the user's answer against the requested schema) and
 * `fromJsonSchema` only; dockerode's BuildKit support (gRPC, protobufjs: lazyEngineExtras), reached from buildImage
 * with `version: "2"` and `docker.followProgress`. This fails when mcpbox's code starts to use one, so the bundle is
 * changed in the same step.
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

describe("dockerode's BuildKit support", () => {
  it("is reached from none of mcpbox's code (the bundle leaves it out)", () => {
    const uses = sources(SRC).flatMap((file) => {
      const text = fs.readFileSync(file, "utf8");
      const found = [...text.matchAll(/(?<!modem)\.followProgress\b|\bversion:\s*["'`]2["'`]|\bwithSession\b/g)];
      return found.map((m) => `${path.relative(SRC, file)}: ${m[0]}`);
    });
    expect(uses).toEqual([]);
  });
});
