/**
 * `mcpbox build` end to end against the real engine: the node template from the npm registry (through this
 * machine's TLS proxy, so only with the CA bundle), the python template from a local package, a server's own
 * Dockerfile. Each image runs as uid 1000 and answers MCP over stdio; template images hold no package manager, no
 * compiler and not the CA bundle; a second build is a no-op; a failed build leaves nothing behind.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import tar from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { mcpboxCommand } from "./helpers/gateway.ts";
import type { BuildResult } from "../src/images/builder.ts";

const REPO = path.resolve(import.meta.dirname, "..");
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
const MEMORY = "@modelcontextprotocol/server-memory";
const docker = engine();
// names of this run's own, so its images and cleanup never touch anyone else's (nor another run of this file)
const RUN = crypto.randomBytes(3).toString("hex");
const S = { memory: `bt${RUN}-memory`, echo: `bt${RUN}-echo`, greeter: `bt${RUN}-greeter`, bad: `bt${RUN}-bad` } as const;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** one entry of `mcpbox build --json` */
type Built = BuildResult;

let dir: string;

function writeConfig(file: string, servers: Record<string, unknown>, build: Record<string, unknown> = { caCerts: CA_BUNDLE }) {
  fs.writeFileSync(path.join(dir, file), JSON.stringify({ build, servers }, null, 2));
  return file;
}

function mcpbox(args: string[]): Result {
  const { command, args: pre } = mcpboxCommand();
  const started = performance.now();
  const r = spawnSync(command, [...pre, ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 900_000,
    env: { ...process.env, NO_COLOR: "1", MCPBOX_HOME: path.join(dir, ".mcpbox") },
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - started };
}

function buildJson(config: string, ...extra: string[]): Built[] {
  const r = mcpbox(["build", "-c", config, "--json", ...extra]);
  if (r.code !== 0) throw new Error(`mcpbox build failed (${r.code}):\n${r.stderr}`);
  return JSON.parse(r.stdout) as Built[];
}

async function removeOurImages() {
  for (const server of Object.values(S)) {
    const images = await docker.listImages({ filters: { label: [`mcpbox.server=${server}`] } });
    for (const i of images) await docker.getImage(i.Id).remove({ force: true }).catch(() => {});
  }
}

/** Lists and hashes every regular file of a container made from the image (not started). */
async function exportedFiles(image: string): Promise<Map<string, string>> {
  const container = await docker.createContainer({ Image: image, Labels: { "mcpbox.test": "build" } });
  try {
    const stream = await container.export();
    const files = new Map<string, string>();
    const extract = tar.extract();
    extract.on("entry", (header, body, next) => {
      const hash = crypto.createHash("sha256");
      body.on("data", (c: unknown) => void hash.update(c as Buffer));
      body.on("end", () => {
        files.set(`/${header.name.replace(/^\.?\//, "")}`, header.type === "file" ? hash.digest("hex") : header.type);
        next();
      });
      body.resume();
    });
    await new Promise<void>((resolve, reject) => {
      extract.on("finish", resolve);
      extract.on("error", reject);
      (stream as NodeJS.ReadableStream).pipe(extract as unknown as NodeJS.WritableStream);
    });
    return files;
  } finally {
    await container.remove({ force: true });
  }
}

/** The SDK client talking to the image over `docker run -i`, as a user of the image would. */
async function mcpClient(image: string): Promise<Client> {
  const client = new Client({ name: "mcpbox-build-test", version: "1.0.0" });
  const args = ["run", "-i", "--rm", "--network", "none", "--read-only", "--cap-drop", "ALL", "--label", "mcpbox.test=build", image];
  await client.connect(new StdioClientTransport({ command: "docker", args, stderr: "ignore" }));
  return client;
}

async function labelled(kind: "images" | "containers", label: string): Promise<string[]> {
  const filters = { label: [label] };
  const list = kind === "images" ? await docker.listImages({ all: true, filters }) : await docker.listContainers({ all: true, filters });
  return list.map((x) => x.Id);
}

let first: Built[];

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-build-e2e-")));
  fs.cpSync(path.join(REPO, "test/fixtures/python-server"), path.join(dir, "python-server"), { recursive: true });
  fs.cpSync(path.join(REPO, "test/fixtures/dockerfile-server"), path.join(dir, "dockerfile-server"), { recursive: true });
  writeConfig("sandbox.config.json", {
    [S.memory]: { template: "node", package: `${MEMORY}@2026.8.31` },
    [S.echo]: { template: "python", package: "./python-server" },
    [S.greeter]: { build: { context: "./dockerfile-server", args: { GREETING: "hi" } } },
  });
  await removeOurImages();
  first = buildJson("sandbox.config.json");
}, 900_000);

afterAll(async () => {
  await removeOurImages();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("mcpbox build", () => {
  it("builds every template and Dockerfile server and reports them as JSON", () => {
    expect(first.map((b) => b.server)).toEqual([S.memory, S.echo, S.greeter]);
    for (const b of first) {
      expect(b).toMatchObject({ image: `mcpbox/${b.server}`, cached: false, user: "1000:1000" });
      expect(b.tag).toMatch(new RegExp(`^mcpbox/${b.server}:[0-9a-f]{12}$`));
      expect(b.size).toBeGreaterThan(0);
    }
  });

  it("labels the images and runs them as uid 1000 with the server as entrypoint", async () => {
    for (const b of first) {
      const info = await docker.getImage(b.tag).inspect();
      expect(info.Config.User).toBe("1000:1000");
      expect(info.Config.Labels).toMatchObject({ "mcpbox.managed-image": "true", "mcpbox.server": b.server });
      expect(info.Config.Labels["mcpbox.config-hash"]).toMatch(/^[0-9a-f]{12}$/);
    }
    const [memory, echo] = first;
    for (const b of [memory!, echo!]) {
      const labels = (await docker.getImage(b.tag).inspect()).Config.Labels;
      expect(labels["mcpbox.template-version"]).toMatch(/^\d+$/);
    }
    expect((await docker.getImage(memory!.tag).inspect()).Config.Entrypoint).toEqual(["/usr/local/bin/node", "/opt/mcpbox/server"]);
    expect((await docker.getImage(echo!.tag).inspect()).Config.Entrypoint).toEqual(["/opt/mcpbox/venv/bin/python", "/opt/mcpbox/server"]);
  });

  it("gives images that answer initialize, tools/list and tools/call over stdio", async () => {
    const expected: Record<string, { tool: string; args: Record<string, unknown>; text?: string }> = {
      [S.memory]: { tool: "read_graph", args: {} },
      [S.echo]: { tool: "echo", args: { text: "through the python template" }, text: "through the python template" },
      [S.greeter]: { tool: "greet", args: { name: "bob" }, text: "hi bob" },
    };
    for (const b of first) {
      const client = await mcpClient(b.tag);
      try {
        const { tools } = await client.listTools();
        const want = expected[b.server]!;
        expect(tools.map((t) => t.name)).toContain(want.tool);
        const result = await client.callTool({ name: want.tool, arguments: want.args });
        expect(result.isError ?? false).toBe(false);
        if (want.text !== undefined) expect(result.content).toEqual([{ type: "text", text: want.text }]);
      } finally {
        await client.close();
      }
    }
  });

  it("leaves no package manager, compiler, shell or CA bundle in template images", async () => {
    const caHash = crypto.createHash("sha256").update(fs.readFileSync(CA_BUNDLE)).digest("hex");
    const forbidden = /\/(npm|npx|yarn|pnpm|corepack|pip|pip3|pip3\.\d+|gcc|cc|g\+\+|make|apt|apt-get|dpkg|sh|bash|dash)$/;
    for (const b of first.slice(0, 2)) {
      const files = await exportedFiles(b.tag);
      const paths = [...files.keys()];
      expect(paths.filter((p) => forbidden.test(p))).toEqual([]);
      expect(paths.filter((p) => /\/node_modules\/npm\/|\/site-packages\/pip\/|\/ensurepip\//.test(p))).toEqual([]);
      expect(paths.filter((p) => files.get(p) === caHash)).toEqual([]);
      expect(paths.filter((p) => p.startsWith("/mcpbox-build"))).toEqual([]);
      expect(files.has("/opt/mcpbox/server")).toBe(true);
    }
  });

  it("builds nothing the second time", () => {
    const r = mcpbox(["build", "--json"]);
    expect(r.code).toBe(0);
    const again = JSON.parse(r.stdout) as Built[];
    expect(again.map((b) => [b.server, b.tag, b.cached])).toEqual(first.map((b) => [b.server, b.tag, true]));
  });

  it("builds again when the package version changes, not when only the CA bundle is left out", () => {
    // the CA bundle from the command line this time (the npm registry is behind this machine's TLS proxy)
    writeConfig("older.config.json", { [S.memory]: { template: "node", package: `${MEMORY}@2026.7.4` } }, {});
    const [older] = buildJson("older.config.json", "--ca-cert", CA_BUNDLE);
    expect(older!.cached).toBe(false);
    expect(older!.tag).not.toBe(first[0]!.tag);
    writeConfig("no-ca.config.json", { [S.memory]: { template: "node", package: `${MEMORY}@2026.8.31` } }, {});
    expect(buildJson("no-ca.config.json")[0]).toMatchObject({ tag: first[0]!.tag, cached: true });
  });

  it("serves a template server through the gateway (mcpbox tools)", () => {
    const r = mcpbox(["tools", S.echo, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const { tools } = JSON.parse(r.stdout) as { tools: { server: string; name: string }[] };
    expect(tools).toEqual([expect.objectContaining({ server: S.echo, name: `${S.echo}__echo` })]);
    expect(r.stderr).toContain(`${first[1]!.tag} is up to date`);
  });

  it("prints the rendered Dockerfile with --print and builds nothing", () => {
    const r = mcpbox(["build", S.echo, "--print"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("FROM python:3.12-slim-bookworm AS builder");
    expect(r.stdout).toContain("FROM scratch");
    expect(r.stdout).toContain("USER 1000:1000");
    expect(r.stdout).not.toMatch(/\{\{/);
  });

  it("fails a build with the failing step and its output, and leaves no container or image behind", async () => {
    writeConfig("bad.config.json", { [S.bad]: { template: "node", package: "@modelcontextprotocol/does-not-exist-mcpbox@1.0.0" } });
    const stage = `mcpbox.build-stage=${S.bad}`;
    const r = mcpbox(["build", "-c", "bad.config.json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`building ${S.bad} failed at step \\d+/\\d+: RUN `));
    expect(r.stderr).toContain("E404");
    expect(r.stderr).toMatch(/hint: .*does not exist/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(await labelled("containers", stage)).toEqual([]);
    expect(await labelled("images", stage)).toEqual([]);
    expect(await labelled("images", `mcpbox.server=${S.bad}`)).toEqual([]);
  });

  it("says what is wrong with --push without a registry and with --pull when no registry is reachable", () => {
    const push = mcpbox(["build", S.echo, "--push"]);
    expect(push.code).toBe(1);
    expect(push.stderr).toContain("--push needs build.registry");
    const pull = mcpbox(["build", S.echo, "--pull"]);
    expect(pull.code).toBe(1);
    expect(pull.stderr).toContain("cannot pull the base image python:3.12-slim-bookworm");
    expect(pull.stderr).toContain("hint:");
  });
});
