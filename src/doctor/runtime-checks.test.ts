import { describe, expect, it } from "vitest";
import { engineCheck } from "./checks.ts";
import { runtimesCheck, type RuntimeCheckFacts } from "./runtime-checks.ts";

const RUNSC_ARGS = { runc: [], runsc: ["--platform=ptrace", "--network=none"] };
const facts = (f: Partial<RuntimeCheckFacts> = {}): RuntimeCheckFacts => ({
  engine: "Docker", offered: ["runc", "runsc"], defaultRuntime: "runc", args: RUNSC_ARGS, needs: [], networked: [], ...f,
});
const gvisor = (server: string, engineName = "runsc") => ({ server, runtime: "gvisor" as const, engineName });

describe("runtimes check", () => {
  it("lists what the engine offers, and the servers that need one", () => {
    expect(runtimesCheck(facts())).toMatchObject({ name: "runtimes", status: "ok", message: "offered: runc, runsc (default runc)" });
    const r = runtimesCheck(facts({ needs: [gvisor("files"), gvisor("code")] }));
    expect(r).toMatchObject({ status: "ok", message: "offered: runc, runsc (default runc); files, code need gvisor (runsc): present" });
    expect(r.data).toMatchObject({ offered: ["runc", "runsc"], missing: [], needed: [{ server: "files", runtime: "gvisor", engineRuntime: "runsc" }, { server: "code" }] });
  });

  it("fails naming each server whose runtime is missing, with how to install and register it", () => {
    const r = runtimesCheck(facts({ offered: ["runc"], args: { runc: [] }, needs: [gvisor("files"), gvisor("other", "nosuch")] }));
    expect(r.status).toBe("fail");
    expect(r.engine).toBeUndefined(); // exit 1, not 3: the engine itself works
    expect(r.message).toBe("offered: runc (default runc); missing: files needs gvisor (runsc); other needs gvisor (nosuch)");
    expect(r.fix).toContain("sudo apt-get install -y runsc");
    expect(r.fix).toContain("/etc/docker/daemon.json");
    expect(r.data).toMatchObject({ missing: [{ server: "files", engineRuntime: "runsc" }, { server: "other", engineRuntime: "nosuch" }] });
  });

  it("warns about a gVisor server with a network when runsc was registered with --network=none", () => {
    const r = runtimesCheck(facts({ needs: [gvisor("web")], networked: [{ server: "web", engineRuntime: "runsc" }] }));
    expect(r).toMatchObject({ status: "warn", message: expect.stringContaining("web runs under runsc, registered with --network=none") });
    expect(runtimesCheck(facts({ args: { runsc: [] }, needs: [gvisor("web")], networked: [{ server: "web", engineRuntime: "runsc" }] })).status).toBe("ok");
  });

  it("says when the engine did not list its runtimes, and that Podman lists configured ones", () => {
    expect(runtimesCheck(facts({ offered: undefined })).status).toBe("ok");
    expect(runtimesCheck(facts({ offered: undefined, needs: [gvisor("a")] }))).toMatchObject({ status: "warn", message: expect.stringContaining("a needs gvisor (runsc) cannot be checked") });
    expect(runtimesCheck(facts({ engine: "Podman", offered: ["crun", "runc", "runsc"] })).message).toContain("Podman lists the runtimes its configuration names");
  });

  it("names the engine it reached", () => {
    expect(engineCheck("unix:///p.sock", undefined, { kind: "Podman", name: "Podman Engine" })).toEqual({
      name: "docker engine", status: "ok", message: "Podman reachable at unix:///p.sock", data: { engine: "Podman", product: "Podman Engine" },
    });
  });
});
