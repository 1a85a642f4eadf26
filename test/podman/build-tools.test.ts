/**
 * `mcpbox build` and `mcpbox tools --call` against Podman's Docker API: the node template with a local package (a
 * dependency-free MCP server, so no registry is needed), as test/build.test.ts builds its templates on Docker. The
 * image runs as uid 1000 and answers over stdio; the builder stage is removed after the build (Podman words its build
 * stream differently: src/docker/image-build.ts); a second build is a no-op; a failed one names its step.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuildResult } from "../../src/images/builder.ts";
import { engine } from "../../src/docker/engine.ts";
import { FIXTURES, mcpboxCommand } from "../helpers/gateway.ts";
import { expectPodman } from "./_podman.ts";

const docker = engine();
// names of this run's own, so its images and cleanup never touch anyone else's
const RUN = crypto.randomBytes(3).toString("hex");
const S = { raw: `pb${RUN}-raw`, bad: `pb${RUN}-bad` } as const;
let dir: string;
let built: BuildResult;

function mcpbox(args: string[]) {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, NO_COLOR: "1", MCPBOX_HOME: path.join(dir, ".mcpbox") },
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Images with this label; `all` counts intermediate layer images too. */
async function imagesLabelled(label: string, all = true): Promise<string[]> {
  return (await docker.listImages({ all, filters: { label: [label] } })).map((i) => i.Id);
}

async function removeOurImages() {
  for (const server of Object.values(S)) {
    for (const label of [`mcpbox.server=${server}`, `mcpbox.build-stage=${server}`]) {
      for (const id of await imagesLabelled(label)) await docker.getImage(id).remove({ force: true }).catch(() => {});
    }
  }
}

/** A local npm package with a bin: the raw JSON-RPC test server (no dependencies). */
function localPackage(name: string): void {
  const pkg = path.join(dir, name);
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, "server.mjs"), `#!/usr/bin/env node\n${fs.readFileSync(path.join(FIXTURES, "raw-server.mjs"), "utf8")}`);
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "raw-probe", version: "1.0.0", bin: { "raw-probe": "server.mjs" } }));
}

beforeAll(async () => {
  await expectPodman();
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-podman-build-")));
  fs.chmodSync(dir, 0o755);
  localPackage("raw-pkg");
  fs.writeFileSync(path.join(dir, "sandbox.config.json"), JSON.stringify({ servers: { [S.raw]: { template: "node", package: "./raw-pkg" } } }, null, 2));
  await removeOurImages();
  const r = mcpbox(["build", "--json"]);
  if (r.code !== 0) throw new Error(`mcpbox build failed (${r.code}):\n${r.stderr}`);
  built = (JSON.parse(r.stdout) as BuildResult[])[0]!;
}, 600_000);

afterAll(async () => {
  await removeOurImages();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("mcpbox build on Podman", () => {
  it("builds the node template from a local package: labelled, uid 1000, the server as entrypoint", async () => {
    expect(built).toMatchObject({ server: S.raw, image: `mcpbox/${S.raw}`, cached: false, user: "1000:1000" });
    expect(built.tag).toMatch(new RegExp(`^mcpbox/${S.raw}:[0-9a-f]{12}$`));
    const info = await docker.getImage(built.tag).inspect();
    expect(info.Config.User).toBe("1000:1000");
    expect(info.Config.Labels).toMatchObject({ "mcpbox.managed-image": "true", "mcpbox.server": S.raw });
    expect(info.Config.Labels["mcpbox.template-version"]).toMatch(/^\d+$/);
    expect(info.Config.Entrypoint).toEqual(["/usr/local/bin/node", "/opt/mcpbox/server"]);
  });

  it("removes the builder stage after the build (nothing labelled as it is left)", async () => {
    expect(await imagesLabelled(`mcpbox.build-stage=${S.raw}`)).toEqual([]);
    // Podman (buildah) puts the build's labels (mcpbox.server, ...) on every intermediate layer image as well, where
    // Docker puts them on the final image only: so, unlike on Docker, only the top-level images are counted here
    // (the layers are the final image's parents, Podman's build cache, and go with it)
    expect(await imagesLabelled(`mcpbox.server=${S.raw}`, false)).toEqual([(await docker.getImage(built.tag).inspect()).Id]);
  });

  it("builds nothing the second time", () => {
    const r = mcpbox(["build", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as BuildResult[]).map((b) => [b.tag, b.cached])).toEqual([[built.tag, true]]);
  });

  it("serves the built server through the gateway: tools lists it, tools --call calls it", () => {
    const list = mcpbox(["tools", S.raw, "--json"]);
    expect(list.code, list.stderr).toBe(0);
    const { tools } = JSON.parse(list.stdout) as { tools: { server: string; name: string }[] };
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining([`${S.raw}__echo`, `${S.raw}__flood`]));
    const call = mcpbox(["tools", S.raw, "--call", `${S.raw}__echo`, JSON.stringify({ text: "called on podman" })]);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain("called on podman");
  });

  it("fails a build with the failing step and leaves no image of it behind", async () => {
    localPackage("bad-pkg");
    const pkg = path.join(dir, "bad-pkg", "package.json");
    fs.writeFileSync(pkg, JSON.stringify({ ...JSON.parse(fs.readFileSync(pkg, "utf8")), scripts: { install: "echo install refused >&2; exit 7" } }));
    fs.writeFileSync(path.join(dir, "bad.config.json"), JSON.stringify({ servers: { [S.bad]: { template: "node", package: "./bad-pkg" } } }));
    const r = mcpbox(["build", "-c", "bad.config.json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`building ${S.bad} failed at step \\d+/\\d+: RUN `));
    expect(r.stderr).toContain("install refused");
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(await imagesLabelled(`mcpbox.build-stage=${S.bad}`)).toEqual([]);
    expect(await imagesLabelled(`mcpbox.server=${S.bad}`)).toEqual([]);
  });
});
