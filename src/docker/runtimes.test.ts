import { describe, expect, it } from "vitest";
import type Docker from "dockerode";
import { resolvedServer } from "../../test/helpers/servers.ts";
import { missingRuntimes, runtimeNeeds } from "../config/_runtime-checks.ts";
import { resolveConfig } from "../config/resolve.ts";
import { UserConfigSchema } from "../config/schema.ts";
import { McpboxError } from "../errors.ts";
import { engineRuntimes, identifyEngine, isUnknownRuntimeError, runtimeCreateError, runtimeGuard } from "./runtimes.ts";

const fakeDocker = (info: unknown, calls = { n: 0 }) => ({ info: async () => (calls.n++, info) }) as unknown as Docker;
const DOCKER_INFO = { Runtimes: { runc: { path: "runc" }, runsc: { path: "/usr/bin/runsc", runtimeArgs: ["--platform=ptrace", "--network=none"] } }, DefaultRuntime: "runc" };

describe("engine runtimes", () => {
  it("reads names, the default and each runtime's arguments from /info", async () => {
    expect(await engineRuntimes(fakeDocker(DOCKER_INFO))).toEqual({
      names: ["runc", "runsc"],
      defaultRuntime: "runc",
      args: { runc: [], runsc: ["--platform=ptrace", "--network=none"] },
    });
    expect((await engineRuntimes(fakeDocker({}))).names).toBeUndefined();
  });

  it("tells Podman from Docker by /version's names", () => {
    expect(identifyEngine({ Platform: { Name: "linux/amd64/debian-12" }, Components: [{ Name: "Podman Engine" }, { Name: "Conmon" }] })).toEqual({ kind: "Podman", name: "Podman Engine" });
    expect(identifyEngine({ Platform: { Name: "Docker Engine - Community" }, Components: [{ Name: "Engine" }] })).toEqual({ kind: "Docker", name: "Docker Engine - Community" });
    expect(identifyEngine({ Platform: { Name: "" }, Components: [{ Name: "Engine" }, { Name: "runc" }] }).kind).toBe("Docker");
  });

  it("recognises the engines' unknown-runtime errors, and nothing else", () => {
    expect(isUnknownRuntimeError(new Error("(HTTP code 400) unexpected - Unknown runtime specified nosuch"))).toBe(true);
    expect(isUnknownRuntimeError(new Error('OCI runtime "nosuch" not found'))).toBe(true);
    expect(isUnknownRuntimeError(new Error("no such image: x"))).toBe(false);
  });
});

describe("runtimeGuard", () => {
  const gvisor = resolvedServer("files", { image: "i", runtime: "gvisor" });

  it("passes a runc server without asking the engine, and a gvisor one the engine offers", async () => {
    const calls = { n: 0 };
    const guard = runtimeGuard(fakeDocker(DOCKER_INFO, calls));
    await guard(resolvedServer("plain"));
    expect(calls.n).toBe(0);
    await guard(gvisor);
    await guard(gvisor);
    expect(calls.n).toBe(1); // asked once per gateway
  });

  it("refuses a gvisor server on an engine without runsc: names the server, the runtime and how to install and register it", async () => {
    const guard = runtimeGuard(fakeDocker({ Runtimes: { runc: {} } }));
    const e = await guard(gvisor).then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(McpboxError);
    const text = (e as Error).message;
    expect(text).toContain('server files needs runtime "gvisor" (the engine\'s "runsc")');
    expect(text).toContain("(it offers: runc)");
    expect(text).toContain("sudo apt-get install -y runsc");
    expect(text).toContain('"runtimeArgs": ["--platform=ptrace", "--network=none"]');
    expect(text).toContain("/etc/docker/daemon.json");
    expect(text).toMatch(/kill -HUP|systemctl restart docker/);
    expect(text).toContain('servers.files.runtime (or defaults.runtime) to "runc"');
  });

  it("names engine.runtimes.gvisor when the configured name is missing", async () => {
    const parsed = UserConfigSchema.parse({ engine: { runtimes: { gvisor: "nosuch" } }, servers: { a: { image: "i", runtime: "gvisor" } } });
    const server = resolveConfig(parsed, "/tmp/sandbox.config.ts").servers[0]!;
    const e = (await runtimeGuard(fakeDocker(DOCKER_INFO))(server).catch((x: unknown) => x)) as Error;
    expect(e.message).toContain('the engine\'s "nosuch"');
    expect(e.message).toContain("engine.runtimes.gvisor");
  });

  it("maps the engine's create error to the same message", () => {
    const mapped = runtimeCreateError(gvisor, new Error("Unknown runtime specified runsc")) as Error;
    expect(mapped.message).toContain("server files needs runtime \"gvisor\"");
    const other = new Error("boom");
    expect(runtimeCreateError(gvisor, other)).toBe(other);
    expect(runtimeCreateError(resolvedServer("plain"), new Error("Unknown runtime specified x"))).toBeInstanceOf(Error);
  });

  it("lists the servers that need a runtime the engine lacks", () => {
    const parsed = UserConfigSchema.parse({ defaults: { runtime: "gvisor" }, servers: { a: { image: "i" }, b: { image: "i", runtime: "runc" } } });
    const needs = runtimeNeeds(resolveConfig(parsed, "/tmp/sandbox.config.ts"));
    expect(needs).toEqual([{ server: "a", runtime: "gvisor", engineName: "runsc" }]);
    expect(missingRuntimes(needs, ["runc"])).toEqual(needs);
    expect(missingRuntimes(needs, ["runc", "runsc"])).toEqual([]);
    expect(missingRuntimes(needs, undefined)).toEqual([]);
  });
});
