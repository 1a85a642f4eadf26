/**
 * `image:` servers are first-class (SPEC 4.2): a missing image is pulled from a real registry on loopback (Debian's
 * docker-registry, started here when none runs) by `build`, `serve` and `tools`, and `doctor` reports it pullable.
 * An image no registry has is reported once, naming the server, the image and the fix, in serve's stderr,
 * `tools --json`, `build --json` and `doctor --json`; the healthy server beside it still answers.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { imageExists } from "../src/docker/images.ts";
import { connect, FIXTURES, mcpboxCommand, project, waitFor, type TestProject } from "./helpers/gateway.ts";
import { nodeBaseImage } from "./helpers/images.ts";
import { ensureRegistry, REGISTRY, type Registry } from "./helpers/registry.ts";

const docker = engine();
const SOURCE = "mcpbox-test/echo-src:1";
const ECHO = `${REGISTRY}/mcpbox-test/echo:1`;
const MISSING = `${REGISTRY}/nope/missing:1`;
const FIX = "the registry has no such image or tag: check the name in servers.gone.image";

let registry: Registry;
const projects: TestProject[] = [];

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function mcpbox(p: TestProject, args: string[]): Result {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args, "-c", p.config], {
    cwd: p.dir,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: "1", MCPBOX_HOME: p.home },
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function newProject(servers: Record<string, unknown>): TestProject {
  const p = project(servers);
  projects.push(p);
  return p;
}

/** Only the registry tag goes: the layers stay under SOURCE, so the pull is quick but still a real one. */
async function removeLocal(ref: string): Promise<void> {
  if (await imageExists(docker, ref)) await docker.getImage(ref).remove();
  expect(await imageExists(docker, ref)).toBe(false);
}

async function follow(stream: NodeJS.ReadableStream): Promise<void> {
  const out = await new Promise<{ error?: string }[]>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, o: { error?: string }[]) => (err ? reject(err) : resolve(o))),
  );
  const failed = out.find((m) => m.error);
  if (failed) throw new Error(failed.error);
}

/** A dependency-free MCP server (the gateway fixture) on the local node base, pushed to the registry. */
async function pushEchoImage(): Promise<void> {
  const ctx = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-echo-image-"));
  fs.copyFileSync(path.join(FIXTURES, "raw-server.mjs"), path.join(ctx, "server.mjs"));
  const base = await nodeBaseImage(docker);
  fs.writeFileSync(path.join(ctx, "Dockerfile"), `FROM ${base}\nCOPY server.mjs /srv/server.mjs\nUSER 1000:1000\nENTRYPOINT ["node", "/srv/server.mjs"]\n`);
  await follow(await docker.buildImage({ context: ctx, src: ["Dockerfile", "server.mjs"] }, { t: SOURCE, rm: true, forcerm: true }));
  fs.rmSync(ctx, { recursive: true, force: true });
  await docker.getImage(SOURCE).tag({ repo: ECHO.replace(/:1$/, ""), tag: "1" });
  await follow(await docker.getImage(ECHO).push({}, undefined, {} as never));
  await removeLocal(ECHO);
}

beforeAll(async () => {
  registry = await ensureRegistry();
  await pushEchoImage();
});

afterAll(async () => {
  for (const p of projects) fs.rmSync(p.dir, { recursive: true, force: true });
  await removeLocal(ECHO).catch(() => {});
  await registry?.stop();
});

const once = (text: string, part: string) => text.split(part).length - 1;

describe("an image: server whose image is missing locally", () => {
  it("is pulled by `mcpbox build` (a JSON row: pulled, then present)", async () => {
    const p = newProject({ echo: { image: ECHO } });
    await removeLocal(ECHO);
    const first = mcpbox(p, ["build", "--json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual([expect.objectContaining({ server: "echo", image: ECHO, pulled: true })]);
    expect(await imageExists(docker, ECHO)).toBe(true);
    const again = mcpbox(p, ["build", "--json"]);
    expect(JSON.parse(again.stdout)).toEqual([expect.objectContaining({ server: "echo", image: ECHO, pulled: false })]);
    const plain = mcpbox(p, ["build"]);
    expect(plain.stdout).toContain(`echo: ${ECHO} is present`);
  });

  it("is pulled by `serve` before the server starts, with progress on stderr, and answers tools/list", async () => {
    const p = newProject({ echo: { image: ECHO } });
    await removeLocal(ECHO);
    const c = await connect(p);
    try {
      const { tools } = await c.client.listTools();
      expect(tools.map((t) => t.name)).toContain("echo__echo");
      expect(c.stderr()).toContain(`echo: pulling ${ECHO}`);
      expect(c.stderr()).toMatch(/echo: Status: Downloaded newer image/);
    } finally {
      await c.client.close();
    }
  });

  it("is reported pullable by `doctor`, naming the server", async () => {
    const p = newProject({ echo: { image: ECHO } });
    await removeLocal(ECHO);
    const r = mcpbox(p, ["doctor", "--json"]);
    const check = JSON.parse(r.stdout).checks.find((c: { name: string }) => c.name === "image (echo)");
    expect(check).toMatchObject({ status: "ok" });
    expect(check.message).toContain(`${ECHO} is not present locally; the registry has it`);
    expect(await imageExists(docker, ECHO)).toBe(false); // a check, not a pull
  });
});

describe("an image no registry has", () => {
  const servers = () => ({ gone: { image: MISSING }, echo: { image: ECHO } });
  const reason = `cannot pull image ${MISSING}: manifest for ${MISSING} not found: manifest unknown; fix: ${FIX}`;
  const failure = `gone: ${reason}`;

  it("is reported once in serve's stderr, with the fix, and the other server still answers", async () => {
    const c = await connect(newProject(servers()));
    try {
      const { tools } = await c.client.listTools();
      expect(tools.map((t) => t.name)).toContain("echo__echo");
      expect(tools.map((t) => t.name).filter((n) => n.startsWith("gone__"))).toEqual([]);
      await waitFor("the failure on serve's stderr", () => c.stderr().includes(reason) || undefined);
      expect(once(c.stderr(), reason), c.stderr()).toBe(1);
      expect(c.stderr()).toContain(`mcpbox: gone: failed: ${reason}\n`);
      expect(once(c.stderr(), `gone: pulling ${MISSING}`)).toBe(1);
    } finally {
      await c.client.close();
    }
  });

  it("is carried by `tools --json` with its error, and printed once on stderr", () => {
    const r = mcpbox(newProject(servers()), ["tools", "--json"]);
    const doc = JSON.parse(r.stdout) as { tools: { name: string }[]; failed: { server: string; error: string }[] };
    expect(doc.tools.map((t) => t.name)).toContain("echo__echo");
    expect(doc.failed).toEqual([expect.objectContaining({ server: "gone", error: expect.stringContaining(reason) })]);
    expect(once(r.stderr, reason), r.stderr).toBe(1);
    expect(once(r.stderr, `gone: pulling ${MISSING}`), r.stderr).toBe(1);
  });

  it("fails `build` with the same text once, and `build --json` gives the row", () => {
    const p = newProject({ gone: { image: MISSING } });
    const plain = mcpbox(p, ["build"]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain(`error: ${failure}\n`);
    expect(once(plain.stdout + plain.stderr, reason), plain.stdout + plain.stderr).toBe(1);
    const json = mcpbox(p, ["build", "--json"]);
    expect(JSON.parse(json.stdout)).toEqual([{ server: "gone", error: failure }]);
  });

  it("fails `doctor --json`, naming the server, the image and the fix", () => {
    const r = mcpbox(newProject(servers()), ["doctor", "--json"]);
    expect(r.code).toBe(1);
    const check = JSON.parse(r.stdout).checks.find((c: { name: string }) => c.name === "image (gone)");
    expect(check).toMatchObject({ status: "fail", fix: FIX });
    expect(check.message).toBe(`${MISSING} is not present locally and cannot be pulled: manifest unknown`);
  });
});
