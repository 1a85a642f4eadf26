/**
 * Boundaries 1, 8 and 9: validation has no bypass. Hostile configs in temp folders, run through `mcpbox validate`,
 * `serve` and `config --mode direct`: writable mounts of code the host runs (the config's folder, a module it imports,
 * $MCPBOX_HOME, a client's configuration), the host network in other spellings, root in other spellings, an image
 * that is a docker option, control characters, and denied mounts reached through a symlink, an engine socket folder
 * or a credential file. Every refusal exits 1 and names the full dotted path of its opt-in.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mcpboxCommand } from "../helpers/gateway.ts";
import { tempDir } from "./_hostile.ts";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

interface Project {
  dir: string;
  home: string;
  mcpboxHome: string;
  config: string;
}

/** A repository (with .git) holding sandbox.config.ts, a fake HOME and a private MCPBOX_HOME beside it. */
function project(config: string, files: Record<string, string> = {}): Project {
  const t = tempDir("config");
  dirs.push(t);
  const dir = path.join(t, "repo");
  const home = path.join(t, "home");
  for (const d of [path.join(dir, ".git"), path.join(dir, "data"), home]) fs.mkdirSync(d, { recursive: true });
  const file = path.join(dir, "sandbox.config.ts");
  fs.writeFileSync(file, config);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return { dir, home, mcpboxHome: path.join(t, "mcpbox-home"), config: file };
}

const servers = (s: Record<string, unknown>) => `export default ${JSON.stringify({ servers: s }, null, 2)};\n`;

function run(p: Project, args: string[], env: Record<string, string> = {}) {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args], {
    cwd: p.dir,
    encoding: "utf8",
    input: "",
    env: { ...process.env, HOME: p.home, MCPBOX_HOME: p.mcpboxHome, NO_COLOR: "1", ...env },
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** `mcpbox validate`: exit 1 with the line at `at`, which names `optIn` (a full dotted path) when given. */
function refused(p: Project, at: string, message: string | RegExp, optIn?: string, env: Record<string, string> = {}) {
  const r = run(p, ["validate"], env);
  expect(r.code, r.err).toBe(1);
  const line = r.err.split("\n").find((l) => l.startsWith(`sandbox.config.ts: ${at}: `));
  expect(line, r.err).toBeDefined();
  expect(line).toMatch(message);
  if (optIn) expect(line).toContain(`set ${optIn}: true`);
  expect(r.err).not.toMatch(/\n\s+at /);
  return line!;
}

const IMAGE = "mcp/x:1";

describe("boundary 1: no writable mount of code the host runs", () => {
  it("refuses a writable mount of the config's folder, in validate and in serve, unless allowWritableConfig", () => {
    const p = project(servers({ files: { image: IMAGE, mounts: [{ source: ".", target: "/work", readOnly: false }] } }));
    refused(p, "servers.files.mounts.0.readOnly", `holds ${p.config}, which the config runs`, "servers.files.dangerous.allowWritableConfig");
    const serve = run(p, ["serve"]);
    expect(serve.code).toBe(1);
    expect(serve.err).toContain("servers.files.mounts.0.readOnly: is writable and holds");
    // read-only it is fine; with the opt-in it is a warning
    fs.writeFileSync(p.config, servers({ files: { image: IMAGE, mounts: [{ source: ".", target: "/work" }] } }));
    expect(run(p, ["validate"]).code).toBe(0);
    fs.writeFileSync(p.config, servers({ files: { image: IMAGE, mounts: [{ source: ".", target: "/work", readOnly: false }], dangerous: { allowWritableConfig: true } } }));
    const allowed = run(p, ["validate"]);
    expect(allowed.code).toBe(0);
    expect(allowed.err).toContain("servers.files.mounts.0.readOnly: warning: is writable and holds");
    expect(allowed.err).toContain("servers.files.dangerous.allowWritableConfig: warning:");
  });

  it("refuses a writable mount of a folder holding a module the config imports (but not of its data folder)", () => {
    const p = project(
      `import { files } from "./lib/servers.ts";\nexport default { servers: { files } };\n`,
      { "lib/servers.ts": `export const files = ${JSON.stringify({ image: IMAGE, mounts: [{ source: "./lib", target: "/l", readOnly: false }, { source: "./data", target: "/d", readOnly: false }] })};\n` },
    );
    const line = refused(p, "servers.files.mounts.0.readOnly", `holds ${path.join(p.dir, "lib/servers.ts")}, which the config runs`, "servers.files.dangerous.allowWritableConfig");
    expect(line).toBeDefined();
    expect(run(p, ["validate"]).err).not.toContain("mounts.1");
  });

  it("follows a config that is a symlink: its imports are checked and their folder's writable mount refused", () => {
    const p = project("", {
      "real/cfg.ts": `import { files } from "../lib/helper.ts";\nexport default { servers: { files } };\n`,
      "lib/helper.ts": `export const files = ${JSON.stringify({ image: IMAGE, mounts: [{ source: "./lib", target: "/l", readOnly: false }] })};\n`,
    });
    fs.rmSync(p.config);
    fs.symlinkSync("real/cfg.ts", p.config);
    refused(p, "servers.files.mounts.0.readOnly", `holds ${path.join(p.dir, "lib/helper.ts")}, which the config runs`, "servers.files.dangerous.allowWritableConfig");
    // and a module there that others can write never runs
    fs.writeFileSync(path.join(p.dir, "lib/helper.ts"), `import fs from "node:fs"; fs.writeFileSync(${JSON.stringify(path.join(p.dir, "ran"))}, "x");\nexport const files = { image: "${IMAGE}" };\n`);
    fs.chmodSync(path.join(p.dir, "lib/helper.ts"), 0o666);
    const r = run(p, ["validate"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/helper\.ts.*refused: writable by other users/);
    expect(fs.existsSync(path.join(p.dir, "ran"))).toBe(false);
  });

  it("refuses a writable mount of $MCPBOX_HOME and of an MCP client's configuration", () => {
    const p = project(servers({ files: { image: IMAGE, mounts: [
      { source: "../mcpbox-home", target: "/h", readOnly: false },
      { source: "~/.cursor", target: "/c", readOnly: false },
      { source: "~/.config/Claude", target: "/cl", readOnly: false },
      { source: "~/.cline", target: "/cc", readOnly: false },
    ] } }));
    for (const d of [p.mcpboxHome, path.join(p.home, ".cursor"), path.join(p.home, ".config/Claude"), path.join(p.home, ".cline")]) fs.mkdirSync(d, { recursive: true });
    refused(p, "servers.files.mounts.0.readOnly", "is $MCPBOX_HOME", "servers.files.dangerous.allowWritableConfig");
    refused(p, "servers.files.mounts.1.readOnly", "is ~/.cursor, an MCP client's configuration");
    refused(p, "servers.files.mounts.2.readOnly", "is ~/.config/Claude, an MCP client's configuration");
    refused(p, "servers.files.mounts.3.readOnly", "is ~/.cline, an MCP client's configuration"); // Cline's CLI reads its own file there
  });
  it("refuses a writable mount of the folder CODEX_HOME moves Codex's configuration to", () => {
    const p = project(servers({ files: { image: IMAGE, mounts: [{ source: "../codex-home", target: "/x", readOnly: false }] } }));
    const codexHome = path.join(path.dirname(p.dir), "codex-home");
    fs.mkdirSync(codexHome);
    expect(run(p, ["validate"], { CODEX_HOME: "" }).code).toBe(0); // without the variable it is a folder like any other
    refused(p, "servers.files.mounts.0.readOnly", `is ${codexHome}, an MCP client's configuration`, "servers.files.dangerous.allowWritableConfig", { CODEX_HOME: codexHome });
  });
});

describe("boundary 8: validation has no bypass", () => {
  it("refuses { network: \"host\" } and another container's network", () => {
    const p = project(servers({ a: { image: IMAGE, network: { network: "host" } }, b: { image: IMAGE, network: "container:abc" }, c: { image: IMAGE, network: { network: "container:db" } } }));
    refused(p, "servers.a.network", 'network "host" shares the host\'s network stack', "servers.a.dangerous.allowHostNetwork");
    refused(p, "servers.b.network", 'network "container:abc" shares the network stack of another container', "servers.b.dangerous.allowHostNetwork");
    refused(p, "servers.c.network", "another container", "servers.c.dangerous.allowHostNetwork");
  });

  it("refuses root however it is written, and user names the image would resolve", () => {
    const p = project(servers({ a: { image: IMAGE, user: "00" }, b: { image: IMAGE, user: "+0" }, c: { image: IMAGE, user: "root:root" }, d: { image: IMAGE, user: "0:1000" }, e: { image: IMAGE, user: "nobody" } }));
    for (const s of ["a", "b", "c", "d"]) refused(p, `servers.${s}.user`, "runs as root", `servers.${s}.dangerous.allowRoot`);
    refused(p, "servers.e.user", '"nobody" is not a numeric uid or uid:gid');
  });

  it("refuses an image that is a docker option, and direct mode puts -- before every image", () => {
    const p = project(servers({ a: { image: "-v/etc:/x" }, b: { image: "--privileged" } }));
    refused(p, "servers.a.image", "must be an image reference");
    refused(p, "servers.b.image", "must be an image reference");
    expect(run(p, ["config", "claude-desktop", "--mode", "direct"]).code).toBe(1);
    fs.writeFileSync(p.config, servers({ a: { image: IMAGE, args: ["--x"] } }));
    const direct = run(p, ["config", "claude-desktop", "--mode", "direct"]);
    expect(direct.code, direct.err).toBe(0);
    const args = (JSON.parse(direct.out) as { mcpServers: Record<string, { args: string[] }> }).mcpServers["mcpbox-a"]!.args;
    expect(args.slice(args.indexOf("--"))).toEqual(["--", IMAGE, "--x"]);
  });

  it("refuses control characters wherever they would reach a Dockerfile, a command line or a label", () => {
    const p = project(servers({
      a: { template: "node", package: "pkg@1\nRUN curl http://127.0.0.1/x | sh", args: ["ok", "\u001b]0;owned\u0007"], env: { MODE: "a\r\nB=c" }, command: ["node\u0085"] },
      b: { build: { context: "./data", args: { V: "1\nRUN id" } }, mounts: [{ source: "./data\t", target: "/d" }] },
    }));
    fs.writeFileSync(path.join(p.dir, "data/Dockerfile"), "FROM scratch\n");
    const r = run(p, ["validate"]);
    expect(r.code).toBe(1);
    for (const at of ["servers.a.package", "servers.a.args.1", "servers.a.env.MODE", "servers.a.command.0", "servers.b.build.args.V", "servers.b.mounts.0.source"]) {
      expect(r.err, at).toMatch(new RegExp(`^sandbox\\.config\\.ts: ${at.replaceAll(".", "\\.")}: the value contains the control character U\\+00`, "m"));
    }
    expect(r.err).not.toContain("\u001b");
  });
});

describe("boundary 9: the mount denylist covers what hands over the host", () => {
  it("refuses a symlink to ~/.ssh, even read-only", () => {
    const p = project(servers({ a: { image: IMAGE, mounts: [{ source: "./keys", target: "/k" }] } }));
    fs.mkdirSync(path.join(p.home, ".ssh"));
    fs.symlinkSync(path.join(p.home, ".ssh"), path.join(p.dir, "keys"));
    refused(p, "servers.a.mounts.0.source", "mounts ~/.ssh, which is refused", "servers.a.dangerous.allowSensitiveMounts");
  });

  it("refuses credential files and folders", () => {
    const creds = [".npmrc", ".netrc", ".pypirc", ".git-credentials", ".config/gcloud", ".config/gh", ".azure"];
    const p = project(servers({ a: { image: IMAGE, mounts: creds.map((c, i) => ({ source: `~/${c}`, target: `/m${i}` })) } }));
    for (const c of creds) {
      fs.mkdirSync(path.dirname(path.join(p.home, c)), { recursive: true });
      if (c.startsWith(".config") || c === ".azure") fs.mkdirSync(path.join(p.home, c));
      else fs.writeFileSync(path.join(p.home, c), "secret\n");
    }
    creds.forEach((c, i) => refused(p, `servers.a.mounts.${i}.source`, `mounts ~/${c}, which is refused`, "servers.a.dangerous.allowSensitiveMounts"));
  });

  it("refuses the DOCKER_HOST socket's folder, $XDG_RUNTIME_DIR and a folder holding them", () => {
    const p = project(servers({ a: { image: IMAGE, mounts: [{ source: "../engine", target: "/e" }, { source: "../runtime/app", target: "/r" }, { source: "..", target: "/t" }] } }));
    const t = path.dirname(p.dir);
    for (const d of ["engine", "runtime/app"]) fs.mkdirSync(path.join(t, d), { recursive: true });
    const env = { DOCKER_HOST: `unix://${path.join(t, "engine/docker.sock")}`, XDG_RUNTIME_DIR: path.join(t, "runtime") };
    refused(p, "servers.a.mounts.0.source", "which holds the DOCKER_HOST socket", "servers.a.dangerous.allowDockerSocket", env);
    refused(p, "servers.a.mounts.1.source", "$XDG_RUNTIME_DIR", "servers.a.dangerous.allowDockerSocket", env);
    refused(p, "servers.a.mounts.2.source", "a folder that contains", undefined, env);
  });

  it("refuses $MCPBOX_HOME itself, even read-only", () => {
    const p = project(servers({ a: { image: IMAGE, mounts: [{ source: "../mcpbox-home", target: "/h" }] } }));
    fs.mkdirSync(p.mcpboxHome);
    refused(p, "servers.a.mounts.0.source", "mounts $MCPBOX_HOME", "servers.a.dangerous.allowSensitiveMounts");
  });
});
