import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { FAST_PARSE_FILE, generateFastParse } from "./_fast-gen.ts";
import { fastParseConfig } from "./_fast-parse.ts";
import { UserConfigSchema } from "./schema.ts";

/** Keys in order, undefined values and array holes included: what toStrictEqual does not compare. */
function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return ["[", v.length, ...Array.from({ length: v.length }, (_, i) => (i in v ? shapeOf(v[i]) : "<hole>"))];
  if (v && typeof v === "object") return Object.keys(v).map((k) => [k, shapeOf((v as Record<string, unknown>)[k])]);
  return typeof v === "number" && Object.is(v, -0) ? "-0" : v;
}

/** Both parsers agree: the same verdict, and on success the same value (same keys, same order, fresh copies). */
function agree(raw: unknown): boolean {
  const fast = fastParseConfig(raw);
  const zod = UserConfigSchema.safeParse(raw);
  expect(fast !== undefined, `fast ${fast === undefined ? "gave up" : "accepted"}, zod ${zod.success ? "accepted" : "refused"}: ${safeJson(raw)}`).toBe(zod.success);
  if (zod.success) {
    expect(fast).toStrictEqual(zod.data);
    expect(shapeOf(fast)).toStrictEqual(shapeOf(zod.data));
  }
  return zod.success;
}

const safeJson = (v: unknown) => {
  try {
    return JSON.stringify(v, (_k, x) => (x === undefined ? "<undefined>" : typeof x === "number" && !Number.isFinite(x) ? String(x) : x))?.slice(0, 400);
  } catch {
    return String(v);
  }
};

/** A config that sets every key of the schema at least once. */
const RICH = {
  $schema: "https://example.com/schema.json",
  defaults: {
    mounts: [{ source: "./shared", target: "/shared" }],
    network: "none",
    limits: { memory: "512m", cpus: 1, pids: 256, tmpfs: "64m" },
    user: "1000:1000",
    readOnlyRoot: true,
    tools: { allow: ["read_*"], deny: ["delete_*"] },
    approve: ["write_*"],
    timeouts: { startupMs: 30000, callMs: 60000, runMs: 10000 },
    prefix: false,
    startup: "lazy",
    restart: "on-failure",
    pathArguments: ["path"],
    clientRequests: { sampling: false, elicitation: true, roots: true },
    runtime: "runc",
    dangerous: { allowRoot: false, allowHostNetwork: false, allowDockerSocket: false, allowSensitiveMounts: false, allowWritableConfig: false, allowAnyEgress: false },
  },
  build: { caCerts: "./ca.pem", baseImages: { node: "node:24-slim", python: "python:3.13-slim" }, registry: "registry.example.com/team" },
  audit: { path: "./audit", enabled: true },
  engine: { runtimes: { runc: "runc", gvisor: "runsc" } },
  servers: {
    img: {
      image: "ghcr.io/example/server:1.0.0",
      command: ["node", "server.js"],
      args: ["--port", "1"],
      env: { LOG_LEVEL: "info", _X: "" },
      secrets: { TOKEN: { env: "HOST_TOKEN" }, KEY: { file: "./key.txt" } },
      mounts: [
        { source: "./in", target: "/in" },
        { source: "./out", target: "/out", readOnly: false },
      ],
      network: { allow: ["api.example.com", "*.example.org", "db.internal:5432"] },
      limits: { memory: "1g", cpus: 0.5, pids: 128 },
      user: 1000,
      prefix: "img-1",
      runtime: "gvisor",
      startup: "eager",
      restart: "never",
      timeouts: { callMs: 2147483647 },
      clientRequests: { sampling: true },
      dangerous: { allowRoot: true },
    },
    tpl: { template: "node", package: "@modelcontextprotocol/server-filesystem@2026.8.31", args: ["/in"], network: "bridge" },
    py: { template: "python", package: "mcp-server-fetch==2025.2.1", network: { network: "mynet" } },
    own: { build: { context: "./srv", dockerfile: "Dockerfile.dev", args: { VERSION: "1" } }, network: "host" },
    other: { image: "mcp/x:1", network: "container:abc" },
    runner: { builtin: "code-runner", languages: ["python", "node", "bash"], maxOutputBytes: 65536, pool: { warm: 1, maxConcurrent: 4, maxQueued: 16 } },
    runner2: { builtin: "code-runner", pool: 2 },
  },
};

const clone = <T>(v: T): T => structuredClone(v);

/** mulberry32: the same mutations on every run. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALUES: unknown[] = [
  undefined, null, "", "x", "/abs", "./rel", "a:b", "512m", "1.5g", "64k", "12 x", "-1m", 0, -0, -1, 0.5, 1, 8, 16, 17, 64, 1024, 1025,
  1_000_000, 1_000_001, 2147483647, 2147483648, 2 ** 53, 1e21, NaN, Infinity, -Infinity, true, false, [], [""], ["x"], ["x", 1], {}, { x: 1 },
  "container:", "container:x", "bridge", "host", "none", "__", "a_", "a__b", "ok-1", "code-runner", "node", "python", "bash", "ruby",
  "runc", "gvisor", "eager", "lazy", "never", "on-failure", "UPPER", "has space", "-leading", "ghcr.io/a/b:1", "a".repeat(33),
  "a".repeat(49), "x".repeat(513), "😀".repeat(256), "😀".repeat(257), "\ud800", { env: "A" }, { file: "f" }, { env: "A", file: "f" },
  { allow: [] }, { allow: ["*"] }, { network: "" }, { source: "s", target: "/t" }, { source: "s", target: "t" }, { warm: 17 },
  { context: "." }, [{ source: "s", target: "/t", readOnly: false }],
];

function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

function mutate(config: unknown, rnd: () => number): unknown {
  const c = clone(config) as Record<string, unknown>;
  const n = 1 + Math.floor(rnd() * 3);
  for (let m = 0; m < n; m++) {
    const all = paths(c).filter((p) => p.length > 0);
    const p = all[Math.floor(rnd() * all.length)]!;
    let parent: any = c;
    for (const seg of p.slice(0, -1)) parent = parent[seg];
    const last = p[p.length - 1]!;
    const what = rnd();
    if (what < 0.15 && !Array.isArray(parent)) delete parent[last];
    else if (what < 0.25 && !Array.isArray(parent)) parent[["extra", "imagee", "mount", "allow", "network", "env"][Math.floor(rnd() * 6)]!] = VALUES[Math.floor(rnd() * VALUES.length)];
    else parent[last] = clone(VALUES[Math.floor(rnd() * VALUES.length)]);
  }
  return c;
}

describe("the fast config parser (_fast-parse.ts)", () => {
  it("is generated from the schema as it is now (node src/config/_fast-gen.ts --write)", () => {
    expect(fs.readFileSync(FAST_PARSE_FILE, "utf8")).toBe(generateFastParse());
  });

  it("parses a config that sets every key exactly as zod does, and each server alone", () => {
    expect(agree(RICH)).toBe(true);
    for (const [name, server] of Object.entries(RICH.servers)) expect(agree({ servers: { [name]: server } })).toBe(true);
    expect(agree({ servers: {} })).toBe(true);
  });

  it("agrees with zod on every one of 4000 seeded mutations of it", () => {
    const rnd = prng(15);
    let accepted = 0;
    for (let i = 0; i < 4000; i++) if (agree(mutate(RICH, rnd))) accepted++;
    // both sides of the verdict were exercised
    expect(accepted).toBeGreaterThan(200);
    expect(accepted).toBeLessThan(3800);
  });

  it("agrees with zod on hostile objects: proxies and getters that answer differently per read, no prototype, __proto__ (2000 seeded)", () => {
    const rnd = prng(16);
    // the answers of the proxies and getters come from one stream, started again for each parser: both read the
    // same things in the same order (as zod does), so both see the same answers and must agree
    let answers = prng(0);
    for (let i = 0; i < 2000; i++) {
      const c = mutate(RICH, rnd) as Record<string, unknown>;
      const objects = paths(c).filter((p) => {
        let v: any = c;
        for (const seg of p) v = v[seg];
        return p.length > 0 && v && typeof v === "object";
      });
      const p = objects[Math.floor(rnd() * objects.length)]!;
      let parent: any = c;
      for (const seg of p.slice(0, -1)) parent = parent[seg];
      const v = parent[p[p.length - 1]!];
      const first = Object.keys(v)[0] ?? "x";
      const kind = Math.floor(rnd() * 5);
      parent[p[p.length - 1]!] =
        kind === 0
          ? Object.assign(Object.create(null), v)
          : kind === 1
            ? new Proxy(v, { has: (t, k) => (answers() < 0.9 ? k in t : !(k in t)) })
            : kind === 2
              ? new Proxy(v, { get: (t, k) => (answers() < 0.95 ? t[k] : "changed") })
              : kind === 3
                ? Object.defineProperty(Array.isArray(v) ? [...v] : { ...v }, first, { get: () => (answers() < 0.5 ? v[first] : 7), enumerable: true })
                : Object.assign(JSON.parse('{"__proto__": {"image": "mcp/x:1"}}'), v);
      const seed = i + 1;
      const fast = ((answers = prng(seed)), fastParseConfig(c));
      // zod's generic parse, which the fast parser mirrors read for read (its JIT path reads in another order)
      const zod = ((answers = prng(seed)), UserConfigSchema.safeParse(c, { jitless: true } as never));
      expect(fast !== undefined, `kind ${kind}: fast ${fast === undefined ? "gave up" : "accepted"}, zod ${zod.success ? "accepted" : "refused"}`).toBe(zod.success);
      if (zod.success) {
        expect(fast).toStrictEqual(zod.data);
        expect(shapeOf(fast)).toStrictEqual(shapeOf(zod.data));
      }
    }
  });

  it("agrees on objects zod reads in its own way: no prototype, classes, symbols, hidden keys, __proto__, getters, holes", () => {
    const bare = Object.assign(Object.create(null), { image: "mcp/x:1" });
    expect(agree({ servers: { a: bare } })).toBe(true);
    expect(agree({ servers: Object.assign(Object.create(null), { a: { image: "mcp/x:1" } }) })).toBe(true);
    class Servers {
      a = { image: "mcp/x:1" };
    }
    agree({ servers: new Servers() });
    class Srv {
      image = "mcp/x:1";
    }
    agree({ servers: { a: new Srv() } });
    agree({ servers: { a: { image: "mcp/x:1" }, [Symbol("s")]: { image: "mcp/x:1" } } });
    agree({ servers: Object.defineProperty({ a: { image: "mcp/x:1" } }, "b", { value: { image: "bad image" }, enumerable: false }) });
    agree(JSON.parse('{"servers": {"__proto__": {"image": "mcp/x:1"}, "a": {"image": "mcp/x:1"}}}'));
    agree(JSON.parse('{"servers": {"a": {"image": "mcp/x:1", "__proto__": {"x": 1}}}}'));
    agree({ servers: { a: { image: "mcp/x:1", env: JSON.parse('{"__proto__": "x", "A": "1"}') } } });
    let reads = 0;
    agree({ servers: { a: { get image() { reads++; return "mcp/x:1"; } } } });
    expect(reads).toBeGreaterThan(0);
    agree({ servers: { a: Object.create({ image: "mcp/x:1" }) } });
    agree({ servers: { a: { image: "mcp/x:1", args: [, "x"] } } }); // eslint-disable-line no-sparse-arrays
    agree({ servers: { a: { image: "mcp/x:1", mounts: [{ source: "s", target: "/t", readOnly: undefined }] } } });
    agree({ servers: { a: { image: undefined, template: "node", package: "p@1" } } });
    agree({ servers: { a: { image: "mcp/x:1" } }, defaults: undefined });
    agree(null);
    agree([]);
    agree("config");
    agree({});
  });

  it("measures strings in code points, as zod does", () => {
    for (const n of [511, 512, 513]) {
      agree({ servers: { a: { image: `a${"😀".repeat(n - 1)}` } } });
      agree({ servers: { a: { image: "mcp/x:1", mounts: [{ source: "😀".repeat(n % 3), target: "/t" }] } } });
    }
  });
});
