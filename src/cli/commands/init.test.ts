import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { run, TYPES_PATH } from "./init.ts";
import { loadConfig, loadConfigFile } from "../../config/load.ts";
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

  it("refuses a workspace link before it writes anything, and a folder at another config name (hrev round 5)", async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-init-docs-"));
    fs.symlinkSync(elsewhere, path.join(dir, "workspace")); // the example server would mount ~/Documents
    await expect(init()).rejects.toThrow(/workspace is a symbolic link; mcpbox does not write through it/);
    fs.rmSync(path.join(dir, "workspace"));
    fs.symlinkSync(path.join(elsewhere, "made"), path.join(dir, "workspace")); // dangling: was an internal error
    await expect(init()).rejects.toThrow(/workspace is a symbolic link/);
    expect(fs.existsSync(path.join(dir, "sandbox.config.ts"))).toBe(false);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    fs.rmSync(elsewhere, { recursive: true });
    fs.rmSync(path.join(dir, "workspace"));

    fs.mkdirSync(path.join(dir, "sandbox.config.mjs"));
    await expect(init({ force: true })).rejects.toThrow(/sandbox\.config\.mjs is a folder; init replaces only a file/);
    fs.rmSync(path.join(dir, "sandbox.config.mjs"), { recursive: true });
    for (const f of ["sandbox.config.ts", TYPES_PATH]) {
      fs.mkdirSync(path.join(dir, f), { recursive: true }); // was rename EISDIR, an internal error
      await expect(init({ force: true })).rejects.toThrow(new RegExp(`${f.replace(/\./g, "\\.")} is a folder; mcpbox replaces only a file there`));
      fs.rmSync(path.join(dir, f), { recursive: true });
    }
    fs.rmSync(path.join(dir, "sandbox.config.ts")); // written before the types were refused
    expect(await init()).toBe(0);
    expect(fs.lstatSync(path.join(dir, "workspace")).isDirectory()).toBe(true);
  });

  it("ships editor types that match the schema (run `npm run build` to regenerate)", async () => {
    expect(fs.readFileSync("templates/init/mcpbox.d.ts", "utf8")).toBe(await renderEditorTypes());
  });
});


describe("init --from a hostile client file (hrev round 5)", () => {
  // each string would write the marker if it reached sandbox.config.ts as code: out of its quotes, as a template, past
  // a line or paragraph separator, out of a comment
  const marker = () => path.join(dir, "MARKER");
  const write = () => `process.getBuiltinModule("fs").writeFileSync(${JSON.stringify(marker())}, "ran")`;
  const payloads = () => [`"); ${write()}; ("`, `\${${write()}}`, "`; " + write() + "; `", `\u2028${write()}; //`, `\u2029${write()}; //`, `*/ ${write()}; /*`, `\n${write()};\n//`];
  const file = (servers: Record<string, unknown>) => {
    const f = path.join(dir, "hostile.json");
    fs.writeFileSync(f, JSON.stringify({ mcpServers: servers }));
    return f;
  };

  it("writes a module whose default export is the data and nothing else, for any string of the entries", async () => {
    const p = payloads();
    const from = file({
      // a newline is refused in an argument (validate): that one is kept as a comment, as the notes, the remote URL
      [`web\u2028${write()}`]: { command: "npx", args: ["-y", "@us/web", ...p.slice(0, 6), "a\u202eb\u2066c\u200b"], env: { PLAIN: p[3]!, __proto__x: "1" } },
      refused: { command: "npx", args: ["-y", "@us/refused", p[6]!] },
      [p[0]!]: { command: "docker", args: ["run", "-i", "-e", "TOKEN", "--health-cmd", p[6]!, "img:1", p[4]!] },
      [p[6]!]: { command: "uvx", args: ["--python", p[6]!, "pkg"] },
      remote: { url: `https://x.io/${p[6]!}` },
      odd: { command: "docker", args: ["run", `--x${p[4]!}`, "img"] },
    });
    expect(await init({ from })).toBe(0);
    const text = fs.readFileSync(path.join(dir, "sandbox.config.ts"), "utf8");
    expect(text).not.toMatch(/[\u2028\u2029\u202e\u2066\u200b]/u); // the reader sees every character as it is
    expect(text).toMatch(/\/\/ refused: validate would refuse it: args\.0: the value contains the control character U\+000A/);
    const { raw } = await loadConfigFile({ cwd: dir });
    expect(fs.existsSync(marker())).toBe(false);
    expect(raw).toEqual({
      servers: {
        "web-process-getbuiltinmodule-fs-writefilesyn": {
          template: "node",
          package: "@us/web",
          args: [...p.slice(0, 6), "a\u202eb\u2066c\u200b"],
          env: { PLAIN: p[3], __proto__x: "1" },
        },
        "process-getbuiltinmodule-fs-writefilesync-tm": { image: "img:1", args: [p[4]], network: "bridge", secrets: { TOKEN: { env: "TOKEN" } } },
        "process-getbuiltinmodule-fs-writefilesync-tm-2": { template: "python", package: "pkg" },
      },
    });
    const ok = spawnSync(process.execPath, [tsc, "--noEmit", "-p", dir], { encoding: "utf8" });
    expect(ok.stdout + ok.stderr).toBe("");
    // the control: the same statement as code in the config does write the marker when the config loads
    fs.writeFileSync(path.join(dir, "sandbox.config.ts"), `${write()};\nexport default { servers: {} };\n`);
    await loadConfigFile({ cwd: dir });
    expect(fs.readFileSync(marker(), "utf8")).toBe("ran");
  });

  it("keeps as a comment a server validate would refuse, and writes no dangerous opt-in", async () => {
    const data = path.join(dir, "data");
    fs.mkdirSync(data);
    const from = file({
      rw: { command: "docker", args: ["run", "-i", "-v", `${dir}:/work:rw`, "img:1"] }, // the folder the config lies in
      bad: { command: "docker", args: ["run", "-i", "--network", "Host", "img:1"] },
      fine: { command: "docker", args: ["run", "-i", "-v", `${data}:/data`, "img:1"] },
    });
    expect(await init({ from })).toBe(0);
    const text = fs.readFileSync(path.join(dir, "sandbox.config.ts"), "utf8");
    expect(text).not.toMatch(/^\s*dangerous/m);
    expect(text).toMatch(/\/\/ rw: validate would refuse it: mounts\.0\.readOnly: is writable and holds .*sandbox\.config\.ts/);
    const { config, warnings } = await loadConfig({ cwd: dir });
    expect(config.servers.map((s) => s.name)).toContain("fine");
    expect(config.servers.map((s) => s.name)).not.toContain("rw");
    expect(warnings.join("\n")).not.toMatch(/error/);
  });

  it("reads only a regular file, within a size, and says so of a FIFO, a device or a nesting bomb", async () => {
    const fifo = path.join(dir, "mcp.json");
    spawnSync("mkfifo", [fifo]);
    await expect(init({ from: fifo })).rejects.toThrow(/is not a regular file \(a FIFO\)/);
    await expect(init({ from: "/dev/zero" })).rejects.toThrow(/is not a regular file \(a device\)/);
    const deep = path.join(dir, "deep.json");
    fs.writeFileSync(deep, `{"mcpServers":{"a":{"command":"npx","args":${"[".repeat(100_000)}${"]".repeat(100_000)}}}}`);
    await expect(init({ from: deep })).rejects.toThrow(/nests values too deeply/);
    const bomb = path.join(dir, "bomb.yaml");
    fs.writeFileSync(bomb, "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n");
    await expect(init({ from: bomb })).rejects.toThrow(McpboxError);
    const big = path.join(dir, "big.json");
    fs.writeFileSync(big, "");
    fs.truncateSync(big, 64 * 1024 * 1024 + 1);
    await expect(init({ from: big })).rejects.toThrow(/larger than 64 MiB/);
    expect(fs.existsSync(path.join(dir, "sandbox.config.ts"))).toBe(false);
  });

  it("reads a file whose size says 0 to its end (a kernel file), and a large one whole", async () => {
    const { readClientFile } = await import("../../clients/import/index.ts");
    expect(readClientFile("/proc/self/status")).toMatch(/^Name:[\s\S]*\nPid:/);
    const big = path.join(dir, "big.json");
    const text = JSON.stringify({ mcpServers: { a: { command: "npx", args: ["p"] } }, pad: "x".repeat(3 * 1024 * 1024) });
    fs.writeFileSync(big, text);
    expect(readClientFile(big)).toBe(text);
  });
});
