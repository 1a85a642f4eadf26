/**
 * The layering of ARCHITECTURE.md, checked: every relative import between the top-level folders of src/ must be one
 * the table allows. A new crossing fails here with the file and the import; the known crossings that issue 15 removes
 * are listed apart, so they can only go away, never grow.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.dirname(new URL(import.meta.url).pathname);

/** The shared leaves every folder may use. */
const LEAVES = ["errors", "version", "text", "jsonrpc", "assets", "home"];

/** Which folder may import which (besides the leaves), as ARCHITECTURE.md draws it. */
const ALLOWED: Record<string, string[]> = {
  errors: [],
  version: [],
  text: [],
  jsonrpc: [],
  assets: [],
  home: [],
  locations: [], // where each OS and each MCP client keeps its configuration: data, read by config and clients
  index: ["config"],
  config: ["egress", "locations"], // the egress allowlist grammar is validated where it is parsed
  egress: ["docker"],
  policy: ["config"], // the run policy and the labels: pure, engine options as data
  docker: ["config", "policy"],
  images: ["config", "docker"],
  runner: ["config", "docker", "policy"],
  gateway: ["config", "docker", "policy", "egress", "images", "runner", "monitor"], // monitor: the event vocabulary it publishes
  monitor: ["docker"],
  http: ["gateway"],
  clients: ["config", "policy", "locations"],
  doctor: ["config", "policy", "docker", "egress", "images"],
  tui: ["monitor", "images"],
  cli: ["*"], // the commands compose everything; nothing imports them
};

/** Crossings that exist today and are to be removed (issue 15); each entry is `from -> to`. */
const KNOWN = new Set<string>([]);

function topOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0]!.replace(/\.tsx?$/, "");
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name.startsWith("__") ? [] : sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.startsWith("_test-") ? [p] : [];
  });
}

/** Every relative import of every source file (type imports too): `from "..."` (imports and re-exports), `import("...")`, and a bare `import "..."`. */
function imports(): { file: string; target: string; spec: string }[] {
  return sources(SRC).flatMap((file) =>
    [...fs.readFileSync(file, "utf8").matchAll(/(?:\bfrom|\bimport\(|^\s*import)\s*["'](\.[^"']+)["']/gm)].map((m) => ({
      file,
      target: path.resolve(path.dirname(file), m[1]!),
      spec: m[1]!,
    })),
  );
}

function crossings(): { from: string; to: string; file: string; spec: string }[] {
  return imports().flatMap(({ file, target, spec }) => {
    const from = topOf(file);
    const to = topOf(target);
    return to === from ? [] : [{ from, to, file: path.relative(SRC, file), spec }];
  });
}

/** The import circles among the source files (strongly connected components of two or more), each as sorted paths. */
function circles(): string[][] {
  const edges = new Map<string, string[]>();
  for (const { file, target } of imports()) edges.set(path.relative(SRC, file), [...(edges.get(path.relative(SRC, file)) ?? []), path.relative(SRC, target)]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const circle = stack.splice(stack.indexOf(v));
    if (circle.length > 1) out.push(circle.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Import circles that exist and are to be removed: they may only shrink or go, never grow (none left: issue 15). */
const KNOWN_CIRCLES: string[][] = [];

/** Backquoted names in a cell of ARCHITECTURE.md's table (`cli/`, `errors.ts`, `config`), as top-level names. */
const namesIn = (cell: string) => [...cell.matchAll(/`([a-z-]+)(?:\/|\.ts)?`/g)].map((m) => m[1]!).filter((n) => n in ALLOWED);

/** ARCHITECTURE.md's folder table: each row's folder and what its "may import" cell names ("*": everything). */
function documented(): { leaves: string[]; rows: Map<string, string[]> } {
  const text = fs.readFileSync(path.join(SRC, "..", "ARCHITECTURE.md"), "utf8");
  const rows = new Map<string, string[]>();
  let leaves: string[] = [];
  for (const line of text.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length !== 5 || !cells[1]!.includes("`")) continue;
    if (cells[1]!.startsWith("leaves:")) leaves = namesIn(cells[1]!);
    else rows.set(namesIn(cells[1]!)[0]!, cells[3]!.startsWith("everything") ? ["*"] : namesIn(cells[3]!));
  }
  return { leaves, rows };
}

describe("the layering of ARCHITECTURE.md", () => {
  const all = crossings();

  it("every import between folders is one the table allows (or a known crossing issue 15 removes)", () => {
    const bad = all
      .filter(({ from, to }) => {
        const allowed = ALLOWED[from];
        if (!allowed) return true; // a new top-level folder: add it to the table and to ARCHITECTURE.md
        return !(allowed.includes("*") || allowed.includes(to) || LEAVES.includes(to) || KNOWN.has(`${from} -> ${to}`));
      })
      .map(({ file, spec, from, to }) => `${file}: imports ${spec} (${from} -> ${to})`);
    expect(bad).toEqual([]);
  });

  it("nothing imports the commands, and the leaves import nothing of the rest", () => {
    const bad = all.filter(({ from, to }) => (to === "cli" && from !== "cli") || (LEAVES.includes(from) && !LEAVES.includes(to)));
    expect(bad.map(({ file, spec }) => `${file}: ${spec}`)).toEqual([]);
  });

  it("every top-level folder and file of src/ is in the table, and ARCHITECTURE.md draws the same table", () => {
    const tops = fs.readdirSync(SRC, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? (e.name.startsWith("__") ? [] : [e.name]) : /^[^.]+\.tsx?$/.test(e.name) ? [topOf(path.join(SRC, e.name))] : [],
    );
    expect(tops.filter((t) => !(t in ALLOWED))).toEqual([]);
    const { leaves, rows } = documented();
    expect(leaves.sort()).toEqual([...LEAVES].sort());
    const table = Object.entries(ALLOWED).filter(([name]) => !LEAVES.includes(name));
    expect(Object.fromEntries([...rows].map(([k, v]) => [k, [...v].sort()]).sort())).toEqual(
      Object.fromEntries(table.map(([k, v]) => [k, [...v].sort()]).sort()),
    );
  });

  it("no file imports itself back through others (type imports too), but for a known circle that only shrinks", () => {
    const known = (c: string[]) => KNOWN_CIRCLES.some((k) => c.every((f) => k.includes(f)));
    expect(circles().filter((c) => !known(c))).toEqual([]);
  });

  it("every known crossing still exists (remove the entry when it is gone)", () => {
    const seen = new Set(all.map(({ from, to }) => `${from} -> ${to}`));
    expect([...KNOWN].filter((k) => !seen.has(k))).toEqual([]);
  });
});
