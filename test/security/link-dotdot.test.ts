/**
 * Boundaries 1 and 9 through a link followed by "..": a mount source `data -> deep/..` with `deep` itself a link to
 * `<denied>/sub`. The engine (the kernel) resolves it physically, to `<denied>`; Node's JavaScript
 * fs.realpathSync substitutes the link text and then drops `deep/..` as text, giving the repository folder instead,
 * so a check on that answer passed what the container then got (hrev, issue 15 review: validate at d352419 accepts a
 * read-only mount of the Docker socket's folder and a writable one of the home this way). The checks must judge what
 * the engine mounts: realpath(3) (fs.realpathSync.native) on Linux since 0a7a35f. The last case is the walk failing
 * outright (its lexical answer is missing) while the kernel's path exists: a check that falls back to the path as
 * written when the walk throws passes it (macOS's walk-then-native composition in 3770290 does; CI runs Linux).
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
  t: string;
  dir: string;
  home: string;
  mcpboxHome: string;
}

/** A repository holding sandbox.config.json and `links` (name -> target), a fake HOME and MCPBOX_HOME beside it. */
function project(mounts: unknown[], links: [string, string][], folders: string[] = []): Project {
  const t = fs.realpathSync(tempDir("dotdot"));
  dirs.push(t);
  const p = { t, dir: path.join(t, "repo"), home: path.join(t, "home"), mcpboxHome: path.join(t, "mcpbox-home") };
  for (const d of [path.join(p.dir, ".git"), p.home, p.mcpboxHome, ...folders.map((f) => path.join(t, f))]) fs.mkdirSync(d, { recursive: true });
  for (const [name, target] of links) {
    fs.mkdirSync(path.dirname(path.join(p.dir, name)), { recursive: true });
    fs.symlinkSync(target, path.join(p.dir, name));
  }
  fs.writeFileSync(path.join(p.dir, "sandbox.config.json"), JSON.stringify({ servers: { a: { image: "mcp/x:1", mounts } } }));
  return p;
}

function validate(p: Project, env: Record<string, string> = {}) {
  const { command, args } = mcpboxCommand();
  const r = spawnSync(command, [...args, "validate"], {
    cwd: p.dir,
    encoding: "utf8",
    input: "",
    env: { ...process.env, HOME: p.home, MCPBOX_HOME: p.mcpboxHome, NO_COLOR: "1", ...env },
    timeout: 30_000,
  });
  return { code: r.status, err: r.stderr };
}

/** The engine's view of the source: where the kernel's own resolution of the link leads. */
const kernelView = (p: Project, source: string) => fs.realpathSync.native(path.join(p.dir, source));

describe("a mount source through a link and '..' is judged where the engine mounts it", () => {
  it("refuses $MCPBOX_HOME reached as deep/.. (deep -> $MCPBOX_HOME/sub), even read-only", () => {
    const p = project([{ source: "./data", target: "/d" }], [], ["mcpbox-home/sub"]);
    fs.symlinkSync(path.join(p.mcpboxHome, "sub"), path.join(p.dir, "deep"));
    fs.symlinkSync("deep/..", path.join(p.dir, "data"));
    expect(kernelView(p, "data")).toBe(p.mcpboxHome);
    const r = validate(p);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/servers\.a\.mounts\.0\.source: mounts \$MCPBOX_HOME/);
  });

  it("refuses the DOCKER_HOST socket's folder reached as e/.. (e -> its subfolder), even read-only", () => {
    const p = project([{ source: "./sock", target: "/engine" }], [], ["engine/sub"]);
    fs.symlinkSync(path.join(p.t, "engine", "sub"), path.join(p.dir, "e"));
    fs.symlinkSync("e/..", path.join(p.dir, "sock"));
    fs.writeFileSync(path.join(p.t, "engine", "docker.sock"), "");
    expect(kernelView(p, "sock")).toBe(path.join(p.t, "engine"));
    const r = validate(p, { DOCKER_HOST: `unix://${path.join(p.t, "engine", "docker.sock")}` });
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/servers\.a\.mounts\.0\.source: .*DOCKER_HOST socket.*set servers\.a\.dangerous\.allowDockerSocket: true/);
  });

  it("refuses the home folder and ~/.ssh reached this way from a subfolder, writable or not", () => {
    const p = project(
      [
        { source: "./sub/h", target: "/h", readOnly: false },
        { source: "./sub/k", target: "/k" },
      ],
      [],
      ["home/.config", "home/.ssh/keys"],
    );
    fs.mkdirSync(path.join(p.dir, "sub"), { recursive: true });
    fs.symlinkSync(path.join(p.home, ".config"), path.join(p.dir, "sub", "c"));
    fs.symlinkSync("c/..", path.join(p.dir, "sub", "h"));
    fs.symlinkSync(path.join(p.home, ".ssh", "keys"), path.join(p.dir, "sub", "s"));
    fs.symlinkSync("s/..", path.join(p.dir, "sub", "k"));
    expect(kernelView(p, "sub/h")).toBe(p.home);
    expect(kernelView(p, "sub/k")).toBe(path.join(p.home, ".ssh"));
    const r = validate(p);
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/servers\.a\.mounts\.0\.source: mounts your home folder/);
    expect(r.err).toMatch(/servers\.a\.mounts\.1\.source: mounts ~\/\.ssh/);
  });

  it("refuses it when the link's text, taken as text, leads nowhere (e/../../../x: the walk fails, the kernel does not)", () => {
    const p = project([{ source: "./sock", target: "/engine" }], []);
    const name = `${path.basename(p.t)}-engine`; // as text the link lands beside <t>, where nothing has this name
    const engine = path.join(p.t, name);
    fs.mkdirSync(path.join(engine, "sub", "d"), { recursive: true });
    fs.symlinkSync(path.join(engine, "sub", "d"), path.join(p.dir, "e"));
    fs.symlinkSync(`e/../../../${name}`, path.join(p.dir, "sock")); // the kernel: d/../../.. is <t>, then <name>
    fs.writeFileSync(path.join(engine, "docker.sock"), "");
    expect(kernelView(p, "sock")).toBe(engine);
    expect(() => fs.realpathSync(path.join(p.dir, "sock"))).toThrow(); // Node's walk: <t>/../<name>, missing
    const r = validate(p, { DOCKER_HOST: `unix://${path.join(engine, "docker.sock")}` });
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/servers\.a\.mounts\.0\.source: .*DOCKER_HOST socket/);
  });
});
