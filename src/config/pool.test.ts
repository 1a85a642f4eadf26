/** The code runner's `pool` key: a number (warm containers, the first form) or { warm, maxConcurrent, maxQueued }. */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "./resolve.ts";
import { UserConfigSchema } from "./schema.ts";

const poolOf = (pool: unknown) =>
  resolveConfig({ servers: { code: { builtin: "code-runner", ...(pool === undefined ? {} : { pool }) } } } as never, "/x/sandbox.config.ts").servers[0]!.pool;

describe("pool", () => {
  it("defaults to no warm containers, 4 runs at once and 16 waiting", () => {
    expect(poolOf(undefined)).toEqual({ warm: 0, maxConcurrent: 4, maxQueued: 16 });
  });

  it("keeps a number meaning warm containers per language", () => {
    expect(poolOf(2)).toEqual({ warm: 2, maxConcurrent: 4, maxQueued: 16 });
  });

  it("takes the object form", () => {
    expect(poolOf({ maxConcurrent: 2, maxQueued: 0 })).toEqual({ warm: 0, maxConcurrent: 2, maxQueued: 0 });
    expect(poolOf({ warm: 1 })).toEqual({ warm: 1, maxConcurrent: 4, maxQueued: 16 });
  });

  it("refuses a cap of zero runs and unknown keys", () => {
    const parse = (pool: unknown) => UserConfigSchema.safeParse({ servers: { code: { builtin: "code-runner", pool } } }).success;
    expect(parse({ maxConcurrent: 0 })).toBe(false);
    expect(parse({ maxConcurent: 2 })).toBe(false);
    expect(parse(3)).toBe(true);
  });
});
