import { createHash } from "node:crypto";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { discoverEngine, dockerodeOptions, engineSentence, socketOf, type DiscoveryEnv } from "./discover.ts";

/** A machine of one OS: these files exist (sockets, pipes, config files with their text). */
function machine(platform: NodeJS.Platform, files: Record<string, string> = {}, vars: Record<string, string> = {}, uid?: number): DiscoveryEnv {
  const home = platform === "win32" ? "C:\\Users\\me" : platform === "darwin" ? "/Users/me" : "/home/me";
  return {
    platform,
    vars,
    home,
    ...(uid !== undefined ? { uid } : {}),
    exists: (p) => p in files,
    readFile: (p) => files[p],
  };
}

const sha = (name: string) => createHash("sha256").update(name).digest("hex");

function contextFiles(dir: string, name: string, host: string, sep: "/" | "\\" = "/") {
  const j = (...parts: string[]) => parts.join(sep);
  return {
    [j(dir, "config.json")]: JSON.stringify({ auths: {}, currentContext: name }),
    [j(dir, "contexts", "meta", sha(name), "meta.json")]: JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker: { Host: host, SkipTLSVerify: false } } }),
  };
}

describe("discoverEngine", () => {
  it("skips a socket another user owns (planted in a shared folder), keeps the user's own and root's", () => {
    const files = { "/tmp/shared/docker.sock": "", "/home/me/.colima/default/docker.sock": "" };
    const owners: Record<string, number> = { "/tmp/shared/docker.sock": 1001, "/home/me/.colima/default/docker.sock": 1000 };
    const env = { ...machine("linux", files, { XDG_RUNTIME_DIR: "/tmp/shared" }, 1000), ownerOf: (p: string) => owners[p] };
    expect(discoverEngine(env).found?.host).toBe("unix:///home/me/.colima/default/docker.sock");
    owners["/tmp/shared/docker.sock"] = 0;
    expect(discoverEngine(env).found?.host).toBe("unix:///tmp/shared/docker.sock");
  });

  it("DOCKER_HOST wins over everything, on every OS", () => {
    for (const os of ["linux", "darwin", "win32"] as const) {
      const d = discoverEngine(machine(os, { "/var/run/docker.sock": "" }, { DOCKER_HOST: "tcp://10.0.0.5:2375" }));
      expect(d.found).toMatchObject({ host: "tcp://10.0.0.5:2375", kind: "env", from: "$DOCKER_HOST" });
    }
  });

  it("the current context of ~/.docker/config.json (meta folder named by the sha256 of the context's name)", () => {
    const files = { ...contextFiles("/Users/me/.docker", "colima", "unix:///Users/me/.colima/default/docker.sock"), "/Users/me/.docker/run/docker.sock": "" };
    const d = discoverEngine(machine("darwin", files));
    expect(d.found).toEqual({
      host: "unix:///Users/me/.colima/default/docker.sock",
      kind: "context",
      label: "Docker context colima",
      from: "~/.docker/config.json currentContext",
    });
  });

  it("DOCKER_CONTEXT over currentContext, DOCKER_CONFIG for the folder; Windows paths", () => {
    const files = {
      ...contextFiles("C:\\Users\\me\\.docker", "desktop-linux", "npipe:////./pipe/dockerDesktopLinuxEngine", "\\"),
      ...contextFiles("D:\\dock", "remote", "ssh://me@build.example", "\\"),
    };
    expect(discoverEngine(machine("win32", files)).found).toMatchObject({ host: "npipe:////./pipe/dockerDesktopLinuxEngine", from: "~\\.docker\\config.json currentContext" });
    const d = discoverEngine(machine("win32", files, { DOCKER_CONFIG: "D:\\dock", DOCKER_CONTEXT: "remote" }));
    expect(d.found).toMatchObject({ host: "ssh://me@build.example", label: "Docker context remote", from: "$DOCKER_CONTEXT" });
  });

  it("the default context, or one without a readable endpoint, falls through to the sockets (with a warning)", () => {
    const sock = { "/var/run/docker.sock": "" };
    expect(discoverEngine(machine("linux", { ...contextFiles("/home/me/.docker", "default", "x"), ...sock })).found?.kind).toBe("docker");
    const broken = { "/home/me/.docker/config.json": '{"currentContext":"gone"}', ...sock };
    const d = discoverEngine(machine("linux", broken));
    expect(d.found?.host).toBe("unix:///var/run/docker.sock");
    expect(d.warning).toMatch(/the Docker context gone .* has no readable endpoint in ~\/\.docker\/contexts\/meta\/[0-9a-f]{64}\/meta\.json/);
    expect(discoverEngine(machine("linux", { "/home/me/.docker/config.json": "{not json", ...sock })).found?.kind).toBe("docker");
  });

  it.each([
    ["darwin", "/Users/me/.docker/run/docker.sock", "docker-desktop", "Docker Desktop"],
    ["darwin", "/Users/me/.orbstack/run/docker.sock", "orbstack", "OrbStack"],
    ["darwin", "/Users/me/.colima/default/docker.sock", "colima", "Colima"],
    ["darwin", "/Users/me/.rd/docker.sock", "rancher-desktop", "Rancher Desktop"],
    ["darwin", "/Users/me/.local/share/containers/podman/machine/podman.sock", "podman-machine", "Podman machine"],
    ["darwin", "/Users/me/.local/share/containers/podman/machine/qemu/podman.sock", "podman-machine", "Podman machine"],
    ["darwin", "/var/folders/xy/T/podman/podman-machine-default-api.sock", "podman-machine", "Podman machine"],
    ["darwin", "/var/run/docker.sock", "docker", "the Docker socket"],
    ["linux", "/var/run/docker.sock", "docker", "Docker Engine"],
    ["linux", "/run/user/1000/docker.sock", "rootless-docker", "rootless Docker"],
    ["linux", "/run/user/1000/podman/podman.sock", "podman", "Podman"],
    ["linux", "/run/podman/podman.sock", "podman", "Podman"],
    ["linux", "/home/me/.docker/desktop/docker.sock", "docker-desktop", "Docker Desktop"],
    ["linux", "/home/me/.colima/default/docker.sock", "colima", "Colima"],
    ["linux", "/home/me/.rd/docker.sock", "rancher-desktop", "Rancher Desktop"],
  ] as const)("%s: %s alone is found as %s", (os, socket, kind, label) => {
    const vars: Record<string, string> = os === "darwin" ? { TMPDIR: "/var/folders/xy/T/" } : { XDG_RUNTIME_DIR: "/run/user/1000" };
    const d = discoverEngine(machine(os, { [socket]: "" }, vars));
    expect(d.found).toEqual({ host: `unix://${path.posix.normalize(socket)}`, kind, label, from: "its socket" });
  });

  it("Windows: Docker Desktop's pipe, then Podman machine's", () => {
    const desktop = "\\\\.\\pipe\\docker_engine";
    const podman = "\\\\.\\pipe\\podman-machine-default";
    expect(discoverEngine(machine("win32", { [desktop]: "", [podman]: "" })).found).toMatchObject({ host: "npipe:////./pipe/docker_engine", kind: "docker-desktop", from: "its named pipe" });
    expect(discoverEngine(machine("win32", { [podman]: "" })).found).toMatchObject({ host: "npipe:////./pipe/podman-machine-default", kind: "podman-machine" });
    expect(discoverEngine(machine("win32", { "/var/run/docker.sock": "" })).found).toBeUndefined();
  });

  it("COLIMA_HOME moves Colima's socket; uid gives the runtime folder when XDG_RUNTIME_DIR is unset", () => {
    expect(discoverEngine(machine("darwin", { "/opt/colima/default/docker.sock": "" }, { COLIMA_HOME: "/opt/colima" })).found?.kind).toBe("colima");
    expect(discoverEngine(machine("darwin", { "/Users/me/.colima/default/docker.sock": "" }, { COLIMA_HOME: "/opt/colima" })).found).toBeUndefined();
    expect(discoverEngine(machine("linux", { "/run/user/1000/docker.sock": "" }, {}, 1000)).found?.kind).toBe("rootless-docker");
    expect(discoverEngine(machine("linux", { "/run/user/0/docker.sock": "" }, {}, 0)).found).toBeUndefined();
  });

  it("order: the system socket first on Linux, Docker Desktop first on macOS", () => {
    const linux = { "/var/run/docker.sock": "", "/run/user/1000/podman/podman.sock": "" };
    expect(discoverEngine(machine("linux", linux, { XDG_RUNTIME_DIR: "/run/user/1000" })).found?.kind).toBe("docker");
    const mac = { "/var/run/docker.sock": "", "/Users/me/.docker/run/docker.sock": "", "/Users/me/.colima/default/docker.sock": "" };
    expect(discoverEngine(machine("darwin", mac)).found?.kind).toBe("docker-desktop");
  });

  it("no home folder: only absolute places are looked at", () => {
    const env = { ...machine("linux", { ".colima/default/docker.sock": "" }), home: "" };
    const d = discoverEngine(env);
    expect(d.found).toBeUndefined();
    expect(d.looked.every((c) => path.posix.isAbsolute(socketOf(c.host)))).toBe(true);
  });
});

describe("dockerodeOptions", () => {
  const c = (host: string, kind = "context" as const) => ({ host, kind, label: "", from: "" });
  it("maps each host form to dockerode's options; DOCKER_HOST is left to dockerode (its TLS variables too)", () => {
    expect(dockerodeOptions(c("unix:///Users/me/.colima/default/docker.sock"))).toEqual({ socketPath: "/Users/me/.colima/default/docker.sock" });
    expect(dockerodeOptions(c("npipe:////./pipe/docker_engine"))).toEqual({ socketPath: "//./pipe/docker_engine" });
    expect(dockerodeOptions(c("tcp://10.0.0.5:2376"))).toEqual({ protocol: "https", host: "10.0.0.5", port: "2376" });
    expect(dockerodeOptions(c("tcp://10.0.0.5"))).toEqual({ protocol: "http", host: "10.0.0.5", port: 2375 });
    expect(dockerodeOptions(c("ssh://me@build.example"))).toEqual({ protocol: "ssh", host: "build.example", port: 22, username: "me" });
    expect(dockerodeOptions({ ...c("tcp://x:1"), kind: "env" as never })).toBeUndefined();
    expect(dockerodeOptions(undefined)).toBeUndefined();
  });
});

describe("engineSentence (what doctor prints)", () => {
  it("names the engine and where it came from", () => {
    const d = discoverEngine(machine("darwin", { "/Users/me/.colima/default/docker.sock": "" }));
    expect(engineSentence(d, "darwin")).toBe("container engine: Colima at unix:///Users/me/.colima/default/docker.sock (from its socket)");
  });
  it.each([
    ["darwin", /no container engine found \(looked at \/Users\/me\/\.docker\/run\/docker\.sock, .*\/var\/run\/docker\.sock\): start Docker Desktop, OrbStack, Colima \(`colima start`\)/],
    ["win32", /looked at \\\\\.\\pipe\\docker_engine, \\\\\.\\pipe\\podman-machine-default\): start Docker Desktop, Rancher Desktop or a Podman machine/],
    ["linux", /start Docker \(`sudo systemctl start docker`\), rootless Docker \(`systemctl --user start docker`\) or Podman .*, or set DOCKER_HOST$/],
  ] as const)("%s, none found: what to start", (os, want) => {
    expect(engineSentence(discoverEngine(machine(os)), os)).toMatch(want);
  });
});
