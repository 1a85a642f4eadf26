import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { run, TYPES_PATH } from "./init.ts";
import { loadConfig } from "../../config/load.ts";
import { renderEditorTypes } from "../../config/editor-types.ts";
import { McpboxError } from "../../errors.ts";

const tsc = path.resolve("node_modules/typescript/bin/tsc");
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-init-"));
  vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  vi.spyOn(process.stderr, "write").mockImplementation(() => true);
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const init = (options: Record<string, unknown> = {}) => run({ cwd: dir, configPath: undefined, options }, ".");

describe("mcpbox init", () => {
  it("scaffolds a config that validates as written", async () => {
    expect(await init()).toBe(0);
    for (const f of ["sandbox.config.ts", TYPES_PATH, "tsconfig.json"]) expect(fs.existsSync(path.join(dir, f))).toBe(true);
    const { config, warnings } = await loadConfig({ cwd: dir });
    expect(config.servers.map((s) => s.name)).toEqual(["files"]);
    expect(config.servers[0]!.mounts[0]).toEqual({ source: path.join(dir, "workspace"), target: "/workspace", readOnly: true });
    expect(warnings).toEqual([]);
  });

  it("refuses to overwrite without --force", async () => {
    await init();
    fs.writeFileSync(path.join(dir, "sandbox.config.ts"), "// mine");
    await expect(init()).rejects.toThrow(McpboxError);
    expect(fs.readFileSync(path.join(dir, "sandbox.config.ts"), "utf8")).toBe("// mine");
    expect(await init({ force: true })).toBe(0);
    expect(fs.readFileSync(path.join(dir, "sandbox.config.ts"), "utf8")).toContain("defineConfig");
  });

  it("leaves types that make tsc --noEmit accept the scaffold and reject a typo", async () => {
    await init();
    const ok = spawnSync(process.execPath, [tsc, "--noEmit", "-p", dir], { encoding: "utf8" });
    expect(ok.stdout + ok.stderr).toBe("");
    expect(ok.status).toBe(0);

    const file = path.join(dir, "sandbox.config.ts");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("mounts:", "monts:"));
    const typo = spawnSync(process.execPath, [tsc, "--noEmit", "-p", dir], { encoding: "utf8" });
    expect(typo.status).not.toBe(0);
    expect(typo.stdout).toContain("'monts' does not exist");

    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("monts:", "mounts:").replace("cpus: 1", 'cpus: "1"'));
    const wrongType = spawnSync(process.execPath, [tsc, "--noEmit", "-p", dir], { encoding: "utf8" });
    expect(wrongType.status).not.toBe(0);
    expect(wrongType.stdout).toContain("Type 'string' is not assignable to type 'number'");
  }, 120_000);

  it("never writes through a link planted at any file it writes, with or without --force", async () => {
    const victim = path.join(dir, "victim");
    const plant = () => {
      for (const f of ["sandbox.config.ts", "tsconfig.json", TYPES_PATH]) {
        fs.rmSync(path.join(dir, f), { force: true });
        fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        fs.symlinkSync(victim, path.join(dir, f));
      }
    };
    fs.writeFileSync(victim, "precious\n");
    plant();
    await expect(init()).rejects.toThrow(/sandbox\.config\.ts already exists/);
    expect(fs.readFileSync(victim, "utf8")).toBe("precious\n");
    expect(await init({ force: true })).toBe(0);
    expect(fs.readFileSync(victim, "utf8")).toBe("precious\n");
    // the links were replaced by files (the config and the types), or left alone (an existing tsconfig.json)
    expect(fs.lstatSync(path.join(dir, "sandbox.config.ts")).isFile()).toBe(true);
    expect(fs.lstatSync(path.join(dir, TYPES_PATH)).isFile()).toBe(true);
    expect(fs.lstatSync(path.join(dir, "tsconfig.json")).isSymbolicLink()).toBe(true);

    fs.rmSync(victim); // a dangling link: following it would create the victim
    plant();
    await expect(init()).rejects.toThrow(/already exists/);
    expect(await init({ force: true })).toBe(0);
    expect(fs.existsSync(victim)).toBe(false);
  });

  it("refuses to write into a folder that is a link", async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-init-elsewhere-"));
    fs.symlinkSync(elsewhere, path.join(dir, ".mcpbox"));
    await expect(init()).rejects.toThrow(/\.mcpbox is a symbolic link; mcpbox does not write through it/);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    fs.rmSync(elsewhere, { recursive: true });
  });

  it("ships editor types that match the schema (run `npm run build` to regenerate)", async () => {
    expect(fs.readFileSync("templates/init/mcpbox.d.ts", "utf8")).toBe(await renderEditorTypes());
  });
});

