import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig, type ResolvedConfig } from "../config/resolve.ts";
import type { ParsedConfig } from "../config/schema.ts";
import { fromImages, imageRepo, planBuild, type PlanOptions } from "./plan.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-plan-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const config = (servers: Record<string, unknown>, build: Record<string, unknown> = {}): ResolvedConfig =>
  resolveConfig({ servers, build } as unknown as ParsedConfig, path.join(dir, "sandbox.config.json"));
const noImages: PlanOptions = { imageId: async () => undefined };
const plan = (c: ResolvedConfig, opts: PlanOptions = noImages) => planBuild(c.servers[0]!, c, opts);
const node = (pkg: string) => config({ s: { template: "node", package: pkg } });

describe("planBuild for templates", () => {
  it("tags mcpbox/<server>:<12 hex> and renders a Dockerfile with no placeholders left", async () => {
    const p = await plan(node("@modelcontextprotocol/server-memory@2026.8.31"));
    expect(p.tag).toMatch(/^mcpbox\/s:[0-9a-f]{12}$/);
    expect(p.dockerfile).toContain("FROM node:24-bookworm-slim AS builder");
    expect(p.dockerfile).toContain("npm install --omit=dev");
    expect(p.dockerfile).toContain("@modelcontextprotocol/server-memory@2026.8.31");
    expect(p.dockerfile).not.toMatch(/\{\{|\}\}/);
    expect(p.files.map((f) => f.name)).toEqual(expect.arrayContaining(["Dockerfile", "mcpbox/entry.mjs", "mcpbox/rootfs.sh"]));
  });

  it("changes the tag with the package version and with the base image's id", async () => {
    const a = await plan(node("x@1.0.0"));
    const b = await plan(node("x@1.0.1"));
    const c = await plan(node("x@1.0.0"), { imageId: async () => "sha256:other" });
    expect(new Set([a.hash, b.hash, c.hash]).size).toBe(3);
    expect((await plan(node("x@1.0.0"))).hash).toBe(a.hash);
  });

  it("keeps the CA bundle out of the tag and out of everything but the builder stage", async () => {
    const ca = path.join(dir, "ca.pem");
    fs.writeFileSync(ca, "-----BEGIN CERTIFICATE-----\n");
    const without = await plan(node("x@1.0.0"));
    const withCa = await plan(node("x@1.0.0"), { ...noImages, caCert: ca });
    expect(withCa.hash).toBe(without.hash);
    expect(withCa.files.map((f) => f.name)).toContain("mcpbox/ca.crt");
    const [builder, final] = withCa.dockerfile.split("FROM scratch");
    expect(builder).toContain("NODE_EXTRA_CA_CERTS=/mcpbox-build/ca.crt");
    expect(final).not.toContain("ca.crt");
    expect(final).toContain("COPY --from=builder /rootfs/ /");
  });

  it("copies a local python package into the context and hashes its content", async () => {
    const pkg = path.join(dir, "pkg");
    fs.mkdirSync(path.join(pkg, "__pycache__"), { recursive: true });
    fs.writeFileSync(path.join(pkg, "pyproject.toml"), "[project]\nname='p'\nversion='1'\n");
    fs.writeFileSync(path.join(pkg, "__pycache__", "x.pyc"), "cache");
    const c = config({ py: { template: "python", package: "./pkg" } });
    const first = await plan(c);
    expect(first.files.map((f) => f.name)).toContain("package/pyproject.toml");
    expect(first.files.map((f) => f.name)).not.toContain("package/__pycache__/x.pyc");
    expect(first.dockerfile).toContain("COPY package/ /mcpbox-build/package/");
    fs.writeFileSync(path.join(pkg, "pyproject.toml"), "[project]\nname='p'\nversion='2'\n");
    expect((await plan(c)).hash).not.toBe(first.hash);
  });
});

describe("planBuild for a server's own Dockerfile", () => {
  it("sends the context minus .dockerignore and hashes the build args", async () => {
    const ctx = path.join(dir, "ctx");
    fs.mkdirSync(ctx, { recursive: true });
    fs.writeFileSync(path.join(ctx, "Dockerfile"), "FROM node:24 AS b\nFROM b\nCOPY s.mjs /s.mjs\n");
    fs.writeFileSync(path.join(ctx, "s.mjs"), "");
    fs.writeFileSync(path.join(ctx, "debug.log"), "");
    fs.writeFileSync(path.join(ctx, ".dockerignore"), "*.log\n");
    const c = (args: Record<string, string>) => config({ d: { build: { context: "./ctx", args } } });
    const a = await plan(c({ A: "1" }));
    expect(a.kind).toBe("build");
    expect(a.bases).toEqual(["node:24"]);
    expect(a.files.map((f) => f.name).sort()).toEqual([".dockerignore", "Dockerfile", "s.mjs"]);
    expect((await plan(c({ A: "2" }))).hash).not.toBe(a.hash);
  });
});

describe("names", () => {
  it("finds the images a Dockerfile builds from", () => {
    expect(fromImages("FROM --platform=linux/amd64 node:24 AS build\nFROM build\nFROM scratch\nfrom python:3 as x\nFROM ${BASE}\n")).toEqual([
      "node:24",
      "python:3",
    ]);
  });

  it("makes a valid repository name from any server name", () => {
    expect(imageRepo("Files_2")).toBe("mcpbox/files_2");
    expect(imageRepo("my server!")).toBe("mcpbox/my-server");
    expect(imageRepo("--x..y--")).toBe("mcpbox/x-y");
  });
});
