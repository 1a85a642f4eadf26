/**
 * Boundary 3: config discovery runs only the user's own file. Hostile repositories in temp folders: a config planted
 * above the repository root or in a folder of another user (uid 4242: root chowns, another user has the engine do it), a config or imported
 * module that others can write or another user owns, behind -c too. Each hostile file writes a marker when it runs;
 * the marker must never appear, and every refusal exits 1 naming the file and the fix.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mcpboxCommand } from "../helpers/gateway.ts";
import { chownTo, removeTree } from "../helpers/owner.ts";
import { tempDir } from "./_hostile.ts";

const OTHER = 4242;
let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) removeTree(d);
  dirs = [];
});

function root(): string {
  const d = tempDir("discovery");
  dirs.push(d);
  return d;
}

function run(cwd: string, args: string[], env: Record<string, string> = {}) {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, MCPBOX_HOME: path.join(cwd, ".mcpbox-home"), NO_COLOR: "1", ...env },
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A config module that leaves a marker when it runs: proof that mcpbox ran it. */
const hostile = (marker: string, body = "export default { servers: {} };") =>
  `import fs from "node:fs";\nfs.writeFileSync(${JSON.stringify(marker)}, "ran");\n${body}\n`;

function write(file: string, text: string, mode = 0o644, uid?: number) {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  fs.writeFileSync(file, text, { mode });
  fs.chmodSync(file, mode);
  if (uid !== undefined) chownTo(file, uid);
}

describe("discovery stops where the user's own folders end", () => {
  it("never runs a config planted above the repository root", () => {
    const t = root();
    const marker = path.join(t, "MARKER");
    write(path.join(t, "sandbox.config.mjs"), hostile(marker));
    fs.mkdirSync(path.join(t, "repo/.git"), { recursive: true });
    fs.mkdirSync(path.join(t, "repo/src"));
    const r = run(path.join(t, "repo/src"), ["validate"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`at the repository root ${path.join(t, "repo")}`);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("never enters a folder another user owns", () => {
    const t = root();
    const marker = path.join(t, "MARKER");
    const theirs = path.join(t, "shared");
    write(path.join(theirs, "sandbox.config.ts"), hostile(marker), 0o644, OTHER);
    fs.mkdirSync(path.join(theirs, "mine"));
    chownTo(theirs, OTHER);
    const r = run(path.join(theirs, "mine"), ["validate"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`before ${theirs}, which is owned by uid ${OTHER}, not by you`);
    expect(r.err).toContain("mcpbox init");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("never enters a folder other users can write (a shared /tmp-like folder)", () => {
    const t = root();
    const marker = path.join(t, "MARKER");
    const shared = path.join(t, "drop");
    write(path.join(shared, "sandbox.config.mjs"), hostile(marker));
    fs.mkdirSync(path.join(shared, "mine"));
    fs.chmodSync(shared, 0o1777);
    const r = run(path.join(shared, "mine"), ["validate"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`before ${shared}, which other users can write`);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("looks only for the names the SPEC lists: no rc files, no global config folder", () => {
    const t = root();
    const marker = path.join(t, "MARKER");
    for (const name of [".mcpboxrc.mjs", "mcpbox.config.mjs", ".config/mcpboxrc.mjs", "package.json"]) {
      write(path.join(t, "p", name), name === "package.json" ? JSON.stringify({ mcpbox: { servers: {} } }) : hostile(marker));
    }
    const home = path.join(t, "home");
    for (const name of ["config.mjs", "config.js", "config.ts"]) write(path.join(home, ".config/mcpbox", name), hostile(marker));
    fs.mkdirSync(path.join(t, "p/.git"));
    const r = run(path.join(t, "p"), ["validate"], { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") });
    expect(r.code).toBe(1);
    expect(r.err).toContain("no sandbox.config.ts found in");
    expect(r.err).toContain("(nor .mts, .js, .mjs or .json; the search stops at the repository root");
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe("a config or module that is not the user's own never runs", () => {
  const project = () => {
    const t = root();
    fs.mkdirSync(path.join(t, "p/.git"), { recursive: true });
    return { t, p: path.join(t, "p"), marker: path.join(t, "MARKER") };
  };

  it("refuses a group-writable config, found or given with -c, before running it", () => {
    const { p, marker } = project();
    const file = path.join(p, "sandbox.config.ts");
    write(file, hostile(marker), 0o664);
    for (const args of [["validate"], ["validate", "-c", file], ["serve", "-c", "sandbox.config.ts"]]) {
      const r = run(p, args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.err).toContain(`${file}: refused: writable by other users (mode 0664)`);
      expect(r.err).toContain(`chmod go-w ${file}`);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("refuses a config in a folder others can write without the sticky bit", () => {
    const { p, marker } = project();
    write(path.join(p, "sandbox.config.mjs"), hostile(marker));
    fs.chmodSync(p, 0o777);
    const r = run(p, ["validate", "-c", "sandbox.config.mjs"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`its folder ${p} is writable by other users (mode 0777, no sticky bit)`);
    expect(r.err).toContain(`chmod go-w ${p}`);
    expect(fs.existsSync(marker)).toBe(false);
  });

  for (const loader of ["native", "jiti"]) {
    it(`refuses an imported module another user owns before it runs (${loader} loader)`, () => {
      const { p, marker } = project();
      write(path.join(p, "sandbox.config.ts"), `import { servers } from "./lib/servers.ts";\nexport default { servers };\n`);
      const evil = path.join(p, "lib/servers.ts");
      write(evil, hostile(marker, "export const servers = {};"), 0o644, OTHER);
      const r = run(p, ["validate"], loader === "jiti" ? { MCPBOX_CONFIG_LOADER: "jiti" } : {});
      expect(r.code).toBe(1);
      expect(r.err).toContain(`${evil}: refused: owned by uid ${OTHER}, not by you (uid ${process.getuid!()})`);
      expect(fs.existsSync(marker)).toBe(false);
    });
  }

  it("refuses a CommonJS package of another user that jiti would hand to Node's require (a config Node cannot strip)", () => {
    const { p, marker } = project();
    write(path.join(p, "sandbox.config.ts"), `import pkg from "evilpkg";\nenum Mode { A }\nexport default { servers: pkg.servers };\n`);
    const evil = path.join(p, "node_modules/evilpkg/index.js");
    write(path.join(p, "node_modules/evilpkg/package.json"), JSON.stringify({ name: "evilpkg", main: "index.js" }));
    write(evil, `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\nmodule.exports = { servers: {} };\n`, 0o644, OTHER);
    const r = run(p, ["validate"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${evil}: refused: owned by uid ${OTHER}`);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("refuses a module imported from a folder others can write, and one reached through a symlink", () => {
    const { t, p, marker } = project();
    write(path.join(p, "sandbox.config.mjs"), `import { servers } from "./lib/servers.mjs";\nexport default { servers };\n`);
    write(path.join(p, "lib/servers.mjs"), hostile(marker, "export const servers = {};"));
    fs.chmodSync(path.join(p, "lib"), 0o757);
    let r = run(p, ["validate"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`its folder ${path.join(p, "lib")} is writable by other users`);
    fs.chmodSync(path.join(p, "lib"), 0o755);
    const elsewhere = path.join(t, "elsewhere.mjs");
    write(elsewhere, hostile(marker, "export const servers = {};"), 0o644, OTHER);
    fs.rmSync(path.join(p, "lib/servers.mjs"));
    fs.symlinkSync(elsewhere, path.join(p, "lib/servers.mjs"));
    r = run(p, ["validate"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`owned by uid ${OTHER}`);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("still loads the user's own config and modules", () => {
    const { p, marker } = project();
    write(path.join(p, "sandbox.config.ts"), `import { servers } from "./lib/servers.ts";\nexport default { servers };\n`);
    write(path.join(p, "lib/servers.ts"), hostile(marker, `export const servers = { a: { image: "mcp/x:1" } };`));
    fs.mkdirSync(path.join(p, "sub"));
    const r = run(path.join(p, "sub"), ["validate"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(fs.existsSync(marker)).toBe(true); // the control: a module that is the user's own does run
  });
});
