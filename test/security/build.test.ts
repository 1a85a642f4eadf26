/**
 * Boundary 2: build inputs never leave their folder, and nothing of the host reaches a build or an image. Hostile
 * repositories made in temp folders are built with `dist/mcpbox build` against the real engine: links to a host file
 * (by absolute path, by `..`, into /proc, as a package archive), a FIFO, a Dockerfile outside the context; and a
 * build run while mcpbox's own environment holds a canary secret and proxy variables. Every image this file makes
 * is scanned byte by byte (`docker save`) for the canaries.
 */
import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { mcpboxCommand } from "../helpers/gateway.ts";
import { tempDir } from "./_hostile.ts";

const docker = engine();
const RUN = crypto.randomBytes(3).toString("hex");
const BASE = "node:24-bookworm-slim";
/** what a host file holds, what mcpbox's environment holds, what the CA bundle holds: none may reach an image */
const CANARY = { file: `mcpbox-host-file-${RUN}`, env: `mcpbox-env-secret-${RUN}`, proxy: `mcpbox-proxy-${RUN}`, ca: `mcpbox-ca-${RUN}` };
const HOST_ENV = {
  MCPBOX_CANARY_SECRET: CANARY.env,
  HTTP_PROXY: `http://${CANARY.proxy}.invalid:3128`,
  https_proxy: `http://${CANARY.proxy}.invalid:3128`,
  NO_PROXY: CANARY.proxy,
};
const servers: string[] = [];

let repo: string; // the hostile repository: config and contexts
let host: string; // a host folder outside it, with a file worth stealing
let secret: string;

beforeAll(() => {
  repo = fs.realpathSync(tempDir("build-repo"));
  host = fs.realpathSync(tempDir("build-host"));
  secret = path.join(host, "id_secret");
  fs.writeFileSync(secret, `${CANARY.file}\n`);
});

afterAll(async () => {
  for (const server of servers) {
    const images = await docker.listImages({ all: true, filters: { label: [`mcpbox.server=${server}`] } });
    for (const i of images) await docker.getImage(i.Id).remove({ force: true }).catch(() => {});
  }
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(host, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function mcpbox(args: string[], timeout = 120_000): Result {
  const { command, args: pre } = mcpboxCommand();
  const started = performance.now();
  const r = spawnSync(command, [...pre, ...args], {
    cwd: repo,
    encoding: "utf8",
    timeout,
    env: { ...process.env, ...HOST_ENV, NO_COLOR: "1", MCPBOX_HOME: path.join(repo, ".mcpbox") },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - started };
}

/** A server of this run, its config file written in the repository. */
function config(kind: string, server: Record<string, unknown>, build: Record<string, unknown> = {}): { name: string; file: string } {
  const name = `sb${RUN}-${kind}`;
  servers.push(name);
  const file = `${kind}.config.json`;
  fs.writeFileSync(path.join(repo, file), JSON.stringify({ build, servers: { [name]: server } }, null, 2));
  return { name, file };
}

/** A build context folder in the repository with a tiny Dockerfile (no download, no install). */
function context(name: string, dockerfile = `FROM ${BASE}\nCOPY . /ctx\nUSER 1000:1000\n`): string {
  const dir = path.join(repo, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "Dockerfile"), dockerfile);
  fs.writeFileSync(path.join(dir, "server.mjs"), "process.stdin.resume();\n");
  return dir;
}

async function imagesOf(server: string): Promise<string[]> {
  return (await docker.listImages({ all: true, filters: { label: [`mcpbox.server=${server}`] } })).map((i) => i.Id);
}

/** Every canary found anywhere in the image: its config, its history, every layer (`docker save`). */
async function canariesIn(image: string): Promise<string[]> {
  const stream = (await docker.getImage(image).get()) as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  const all = Buffer.concat(chunks);
  return Object.values(CANARY).filter((c) => all.includes(c));
}

/** A refusal as SPEC 1 wants it: exit 1, the message, a hint, no stack, before any engine work. */
function expectRefused(r: Result, message: RegExp) {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).toContain("hint:");
  expect(r.stderr).not.toMatch(/^\s+at /m);
}

describe("a build context or package with a link to a host file", () => {
  const variants: [string, (dir: string) => void, RegExp][] = [
    ["absolute", (d) => fs.symlinkSync(secret, path.join(d, "key")), /key is a symlink to \/.*id_secret, outside /],
    ["dotdot", (d) => fs.symlinkSync(path.relative(d, secret), path.join(d, "key")), /key is a symlink to (\.\.\/)+.*id_secret, outside /],
    ["proc", (d) => fs.symlinkSync("/proc/self/environ", path.join(d, "env")), /env is a symlink to \/proc\/self\/environ, outside /],
    [
      "chain",
      (d) => {
        fs.writeFileSync(path.join(d, ".dockerignore"), "hop\n");
        fs.symlinkSync(secret, path.join(d, "hop"));
        fs.symlinkSync("hop", path.join(d, "key"));
      },
      /key is a symlink to hop \(.*id_secret\), outside /,
    ],
  ];

  for (const [kind, plant, message] of variants) {
    it(`is refused (${kind}), by build and by --print, and no image is made`, async () => {
      const dir = context(`ctx-${kind}`);
      plant(dir);
      const { name, file } = config(`link-${kind}`, { build: { context: `./ctx-${kind}` } });
      const r = mcpbox(["build", "-c", file]);
      expectRefused(r, message);
      expect(r.stderr).toContain(`servers.${name}.build.context`);
      expect(r.stderr).toMatch(/hint: a build sends only what is inside its folder/);
      expectRefused(mcpbox(["build", "-c", file, "--print"]), message);
      for (const id of await imagesOf(name)) expect(await canariesIn(id)).toEqual([]);
      expect(await imagesOf(name)).toEqual([]);
    });
  }

  it("is refused in a local package folder and as a package archive that is a link", async () => {
    const pkg = path.join(repo, "pkg-link");
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, "package.json"), '{"name":"x","version":"1.0.0","bin":"server.mjs"}');
    fs.symlinkSync(secret, path.join(pkg, "server.mjs"));
    const folder = config("pkg-folder", { template: "node", package: "./pkg-link" });
    expectRefused(mcpbox(["build", "-c", folder.file]), /servers\.\S+\.package: server\.mjs is a symlink to .*id_secret, outside /);
    fs.symlinkSync(secret, path.join(repo, "server.tgz"));
    const archive = config("pkg-archive", { template: "node", package: "./server.tgz" });
    expectRefused(mcpbox(["build", "-c", archive.file]), /servers\.\S+\.package: .*server\.tgz leads to .*id_secret, outside /);
    fs.mkdirSync(path.join(host, "srv"));
    fs.writeFileSync(path.join(host, "srv", "Dockerfile"), `FROM ${BASE}\n`);
    fs.symlinkSync(path.join(host, "srv"), path.join(repo, "vendor"));
    const root = config("ctx-root", { build: { context: "./vendor" } });
    expectRefused(mcpbox(["build", "-c", root.file]), /build\.context: .*vendor leads to .*build-host.*, outside /);
    for (const s of [folder.name, archive.name, root.name]) expect(await imagesOf(s)).toEqual([]);
  });
});

describe("what a build context may hold", () => {
  it("refuses a FIFO at once (it never hangs the build), in the context and as its .dockerignore", () => {
    const dir = context("ctx-fifo");
    execFileSync("mkfifo", [path.join(dir, "pipe")]);
    const { file } = config("fifo", { build: { context: "./ctx-fifo" } });
    const r = mcpbox(["build", "-c", file], 20_000);
    expectRefused(r, /pipe is a FIFO \(named pipe\); a build sends only regular files, folders and symlinks/);
    expect(r.ms).toBeLessThan(10_000);
    fs.rmSync(path.join(dir, "pipe"));
    execFileSync("mkfifo", [path.join(dir, ".dockerignore")]);
    const again = mcpbox(["build", "-c", file, "--print"], 20_000);
    expect(again.code, "a FIFO .dockerignore hung the build").not.toBeNull();
    expectRefused(again, /\.dockerignore is a FIFO/);
  });

  it("refuses a Dockerfile outside the context (.. or absolute), by build and by --print", () => {
    context("ctx-df");
    const outside = path.join(host, "Dockerfile");
    fs.writeFileSync(outside, `FROM ${BASE}\nRUN echo ${CANARY.file}\n`);
    for (const dockerfile of [path.relative(path.join(repo, "ctx-df"), outside), outside]) {
      const { file } = config("df-outside", { build: { context: "./ctx-df", dockerfile } });
      for (const extra of [[], ["--print"]]) {
        const r = mcpbox(["build", "-c", file, ...extra]);
        expectRefused(r, /build\.dockerfile: .*Dockerfile is outside the build context/);
        expect(r.stdout).not.toContain(CANARY.file);
      }
    }
  });
});

describe("a build the host cannot reach into", () => {
  let image: string;
  let name: string;

  beforeAll(() => {
    const dir = context("ctx-env", `FROM ${BASE}\nCOPY . /ctx\nRUN env > /env.txt\nUSER 1000:1000\n`);
    fs.mkdirSync(path.join(dir, "data"));
    fs.writeFileSync(path.join(dir, "data", "real.txt"), "inside\n");
    fs.symlinkSync("data/real.txt", path.join(dir, "alias"));
    fs.symlinkSync("../server.mjs", path.join(dir, "data", "up"));
    const c = config("env", { build: { context: "./ctx-env", args: { GREETING: "hi" } } });
    name = c.name;
    const r = mcpbox(["build", "-c", c.file, "--json"]);
    if (r.code !== 0) throw new Error(`mcpbox build failed (${r.code}):\n${r.stderr}`);
    image = (JSON.parse(r.stdout) as { tag: string }[])[0]!.tag;
  });

  const inImage = (...cmd: string[]) =>
    execFileSync("docker", ["run", "--rm", "--network", "none", "--label", "mcpbox.test=security-build", "--entrypoint", cmd[0]!, image, ...cmd.slice(1)], {
      encoding: "utf8",
    });

  it("keeps a link inside the context as a link", () => {
    expect(inImage("readlink", "/ctx/alias").trim()).toBe("data/real.txt");
    expect(inImage("readlink", "/ctx/data/up").trim()).toBe("../server.mjs");
    expect(inImage("cat", "/ctx/alias")).toBe("inside\n");
  });

  it("gives the build none of mcpbox's environment: the image holds no canary anywhere", async () => {
    const env = inImage("cat", "/env.txt");
    expect(env).toMatch(/^PATH=/m); // the RUN did run and wrote its environment
    for (const c of Object.values(CANARY)) expect(env).not.toContain(c);
    expect(env).not.toMatch(/^(HTTPS?_PROXY|https?_proxy|NO_PROXY|no_proxy|MCPBOX_\w+)=/m);
    expect(await canariesIn(image)).toEqual([]);
    expect((await docker.getImage(image).inspect()).Config.Labels["mcpbox.server"]).toBe(name);
  });
});

describe("the CA bundle of build.caCerts", () => {
  it("is readable while the package installs and absent from the final image", async () => {
    const pkg = path.join(repo, "pkg-ca");
    fs.mkdirSync(pkg, { recursive: true });
    // the install script fails the build unless the bundle is there for package managers (NODE_EXTRA_CA_CERTS)
    // (the canary split in two, so the package itself does not carry it into the image)
    const wanted = `'${CANARY.ca.slice(0, 4)}'+'${CANARY.ca.slice(4)}'`;
    const check = `node -e "if(!require('fs').readFileSync(process.env.NODE_EXTRA_CA_CERTS,'utf8').includes(${wanted}))process.exit(3)"`;
    fs.writeFileSync(
      path.join(pkg, "package.json"),
      JSON.stringify({ name: "ca-probe", version: "1.0.0", bin: { "ca-probe": "server.mjs" }, scripts: { install: check } }),
    );
    fs.writeFileSync(path.join(pkg, "server.mjs"), "#!/usr/bin/env node\nprocess.stdin.resume();\n");
    const bundle = path.join(host, "ca.pem");
    fs.writeFileSync(bundle, `${fs.readFileSync("/etc/ssl/certs/ca-certificates.crt", "utf8")}\n# ${CANARY.ca}\n`);
    const { name, file } = config("ca", { template: "node", package: "./pkg-ca" }, { caCerts: bundle });
    const r = mcpbox(["build", "-c", file, "--json"], 300_000);
    expect(r.code, r.stderr).toBe(0);
    const [built] = JSON.parse(r.stdout) as { tag: string; user: string }[];
    expect(built!.user).toBe("1000:1000");
    expect(await canariesIn(built!.tag)).toEqual([]);
    // the builder stage, the only one that held the bundle, is gone
    expect(await docker.listImages({ all: true, filters: { label: [`mcpbox.build-stage=${name}`] } })).toEqual([]);
  });
});
