import { describe, expect, it } from "vitest";
import * as C from "./checks.ts";

const version: C.VersionFacts = { product: "Docker Engine", version: "20.10.24", apiVersion: "1.41", os: "linux", arch: "amd64", cgroupVersion: "1" };

describe("engine discovery", () => {
  const desktop = { host: "unix:///Users/me/.docker/run/docker.sock", kind: "docker-desktop" as const, label: "Docker Desktop", from: "its socket" };
  const system = { host: "unix:///var/run/docker.sock", kind: "docker" as const, label: "Docker", from: "its socket" };
  it("names the engine found and where from, with its facts in data", () => {
    const r = C.discoveryCheck({ found: desktop, looked: [desktop] }, "darwin");
    expect(r).toEqual({
      name: "engine discovery",
      status: "ok",
      message: "container engine: Docker Desktop at unix:///Users/me/.docker/run/docker.sock (from its socket)",
      data: { kind: "docker-desktop", label: "Docker Desktop", host: desktop.host, from: "its socket", looked: [desktop.host] },
    });
  });
  it("when none is found, says what to start on this OS (a warning: the engine check fails beside it)", () => {
    const win = C.discoveryCheck({ looked: [{ ...desktop, host: "npipe:////./pipe/docker_engine" }] }, "win32");
    expect(win).toMatchObject({ status: "warn", message: expect.stringMatching(/^no container engine found \(looked at .*docker_engine\): start Docker Desktop, Rancher Desktop/) });
    expect(win.data).toEqual({ looked: ["npipe:////./pipe/docker_engine"] });
    expect(C.discoveryCheck({ looked: [system] }, "linux").message).toMatch(/sudo systemctl start docker/);
    expect(C.discoveryCheck({ looked: [system] }, "darwin").message).toMatch(/colima start/);
  });
  it("a context that cannot be read is a warning beside the engine found", () => {
    const warning = "the Docker context x (~/.docker/config.json currentContext) has no readable endpoint in ~/.docker/contexts/meta/y/meta.json; looked for an engine instead";
    const r = C.discoveryCheck({ found: system, looked: [system], warning }, "linux");
    expect(r).toMatchObject({ status: "warn", message: `container engine: Docker at unix:///var/run/docker.sock (from its socket); ${warning}`, fix: expect.stringContaining("docker context ls"), data: { warning } });
  });
});

describe("engine and version", () => {
  it("a reachable engine is ok; an unreachable one fails as an engine problem with the error's hint", () => {
    expect(C.engineCheck("unix:///var/run/docker.sock")).toMatchObject({ status: "ok", message: "reachable at unix:///var/run/docker.sock" });
    const failed = C.engineCheck("unix:///x.sock", { message: "no Docker engine reachable at unix:///x.sock", hint: "start Docker" });
    expect(failed).toEqual({ name: "docker engine", status: "fail", message: "no Docker engine reachable at unix:///x.sock", fix: "start Docker", engine: true });
    expect(C.engineCheck("tcp://h:2375", { message: "boom" }).fix).toMatch(/DOCKER_HOST/);
  });

  it("describes the engine and refuses an API older than the minimum", () => {
    expect(C.versionCheck(version)).toEqual({ name: "engine version", status: "ok", message: "Docker Engine 20.10.24, API 1.41 (linux/amd64, cgroup v1)" });
    const old = C.versionCheck({ ...version, version: "18.09", apiVersion: "1.39", cgroupVersion: undefined });
    expect(old).toMatchObject({ status: "fail", engine: true, message: "Docker Engine 18.09, API 1.39 (linux/amd64): API older than 1.40" });
  });

  it("compares versions numerically", () => {
    expect(C.compareVersions("1.9", "1.41")).toBe(-1);
    expect(C.compareVersions("1.41", "1.40")).toBe(1);
    expect(C.compareVersions("1.40", "1.40.0")).toBe(0);
  });
});

describe("socket", () => {
  it("names the problem and its fix", () => {
    expect(C.socketCheck({ kind: "unix", path: "/s", state: "ok" }).status).toBe("ok");
    expect(C.socketCheck({ kind: "remote", address: "tcp://h:2376" })).toMatchObject({ status: "ok", message: "tcp://h:2376 is not a unix socket: nothing to check" });
    const denied = C.socketCheck({ kind: "unix", path: "/var/run/docker.sock", state: "no-permission" });
    expect(denied).toMatchObject({ status: "fail", engine: true, message: "no permission to use /var/run/docker.sock" });
    expect(denied.fix).toMatch(/usermod -aG docker/);
    expect(C.socketCheck({ kind: "unix", path: "/s", state: "missing" })).toMatchObject({ status: "fail", engine: true, message: "no socket at /s" });
    expect(C.socketCheck({ kind: "unix", path: "/s", state: "not-a-socket" })).toMatchObject({ status: "fail", engine: true });
  });
});

describe("base images", () => {
  it("present is ok with its size", () => {
    expect(C.baseImageCheck({ lang: "node", image: "node:24-bookworm-slim", size: 247_000_000, usedBy: [] })).toEqual({
      name: "base image (node)",
      status: "ok",
      message: "node:24-bookworm-slim (247 MB)",
    });
  });

  it("missing is a warning, or a failure when a configured server builds on it; the fix says how to get it", () => {
    const unused = C.baseImageCheck({ lang: "python", image: "python:3.12-slim-bookworm", size: undefined, usedBy: [] });
    expect(unused).toMatchObject({ status: "warn", message: "python:3.12-slim-bookworm is not present locally" });
    expect(unused.fix).toBe("docker pull python:3.12-slim-bookworm, or set build.baseImages.python to an image you have");
    const used = C.baseImageCheck({ lang: "node", image: "node:24", size: undefined, usedBy: ["files", "memory"] });
    expect(used).toMatchObject({ status: "fail", message: "node:24 is not present locally, needed by files, memory" });
    expect(used.engine).toBeUndefined();
  });
});

describe("config", () => {
  it("no config is a warning pointing at mcpbox init", () => {
    expect(C.configCheck({ state: "none", message: "no sandbox.config.ts found" })).toMatchObject({ status: "warn", fix: expect.stringMatching(/mcpbox init/) });
  });

  it("a config that cannot load or has errors fails; warnings warn", () => {
    expect(C.configCheck({ state: "unloadable", message: "x.ts: cannot be loaded", hint: "fix it" })).toMatchObject({ status: "fail", fix: "fix it" });
    const bad = C.configCheck({ state: "loaded", file: "sandbox.config.ts", servers: 2, errors: ["sandbox.config.ts: servers.a.image: required", "other"], warnings: 0 });
    expect(bad).toMatchObject({ status: "fail", message: "sandbox.config.ts: 2 servers, 2 errors, 0 warnings; first: sandbox.config.ts: servers.a.image: required" });
    expect(bad.fix).toMatch(/mcpbox validate/);
    expect(C.configCheck({ state: "loaded", file: "c.ts", servers: 1, errors: [], warnings: 1 })).toMatchObject({ status: "warn", message: "c.ts: 1 server, 0 errors, 1 warning" });
    expect(C.configCheck({ state: "loaded", file: "c.ts", servers: 1, errors: [], warnings: 0 }).status).toBe("ok");
  });
});

describe("MCPBOX_HOME and runtime", () => {
  it("home is ok or fails with the reason", () => {
    expect(C.homeCheck("/h")).toMatchObject({ status: "ok", message: "/h is writable" });
    expect(C.homeCheck("/h", "EACCES: permission denied")).toMatchObject({ status: "fail", message: "/h is not writable: EACCES: permission denied" });
  });

  it("runtime: accepted, refused, accepted with engine warnings, or not checked without an image", () => {
    expect(C.runtimeCheck({ image: "node:24", warnings: [], unsupported: [] }).status).toBe("ok");
    expect(C.runtimeCheck({ image: "node:24", error: "invalid option", warnings: [], unsupported: [] })).toMatchObject({ status: "fail" });
    const limited = C.runtimeCheck({ image: "node:24", warnings: ["Your kernel does not support swap limit capabilities"], unsupported: ["pids limit"] });
    expect(limited).toMatchObject({ status: "warn", message: "accepted, but: no pids limit support; Your kernel does not support swap limit capabilities" });
    expect(C.runtimeCheck({ image: undefined, warnings: [], unsupported: [] }).status).toBe("warn");
  });

  it("a skipped check is a warning that says why", () => {
    expect(C.skipped("engine version")).toEqual({ name: "engine version", status: "warn", message: "not checked: the engine is unusable" });
  });
});
