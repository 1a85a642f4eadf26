import { describe, expect, it } from "vitest";
import { denyReason, unixSocketDir, type DenyEnv } from "./_denylist.ts";
import { isCaseInsensitive } from "./checks.ts";

const home = "/home/ada";
const env = (over: Partial<DenyEnv> = {}): DenyEnv => ({
  home,
  vars: { XDG_RUNTIME_DIR: "/run/user/1000", DOCKER_HOST: "unix:///opt/engine/sock/docker.sock", MCPBOX_HOME: "/srv/mcpbox" },
  realpath: (p) => p,
  caseInsensitive: () => false,
  ...over,
});

describe("mount denylist (SPEC 2.3)", () => {
  const sockets = [
    "/run/user/1000", "/run/user/1000/podman", "/run/user/42", "/run/user", "/opt/engine/sock", "/opt/engine",
    `${home}/.local/share/containers`, `${home}/.colima/default`, `${home}/.docker/run`, "/run/podman", "/var/run/podman",
    `${home}/.lima`, `${home}/.rd/docker.sock`, `${home}/.orbstack`, `${home}/.docker`, "/run", "/var/run/docker.sock", "/srv/x/podman.sock",
  ];
  for (const p of sockets) {
    it(`refuses ${p} as an engine socket`, () => expect(denyReason(p, env())?.kind).toBe("docker-socket"));
  }
  const sensitive = [
    `${home}/.config/gcloud`, `${home}/.config/gcloud/creds.json`, `${home}/.azure`, `${home}/.config/gh`, `${home}/.netrc`,
    `${home}/.npmrc`, `${home}/.pypirc`, `${home}/.git-credentials`, `${home}/.ssh`, `${home}/.ssh/id_ed25519`, `${home}/.aws`,
    `${home}/.gnupg`, `${home}/.kube`, `${home}/.docker/config.json`, "/srv/mcpbox", "/srv/mcpbox/audit", "/srv", "/etc", "/etc/passwd", "/",
    home, `${home}/.config`,
  ];
  for (const p of sensitive) {
    it(`refuses ${p}`, () => expect(denyReason(p, env())?.kind, p).toBe("sensitive"));
  }
  it("refuses the host kernel's interfaces: /proc hands over the user's processes and every file they see (hrev round 5)", () => {
    for (const p of ["/proc", "/proc/1234", "/proc/1234/root", "/proc/self", "/dev", "/dev/shm", "/dev/pts/0", "/sys", "/sys/firmware"]) {
      expect(denyReason(p, env())?.kind, p).toBe("sensitive");
    }
    expect(denyReason("/proc/4242", env())?.what).toBe("/proc, the host's processes (their environment, and every file they see through /proc/<pid>/root)");
    for (const p of ["/procedures", "/devel", "/system"]) expect(denyReason(p, env()), p).toBeUndefined();
  });

  it("names what a folder holds", () => {
    expect(denyReason(`${home}/.config`, env())?.what).toMatch(/a folder that contains ~\/\.config\/(gcloud|gh|git|containers)/);
    expect(denyReason("/srv", env())?.what).toBe("a folder that contains $MCPBOX_HOME (/srv/mcpbox)");
  });
  it("accepts ordinary folders", () => {
    for (const p of [`${home}/code`, `${home}/.config-backup`, "/data", "/run/lock", `${home}/.sshkeys-public`]) {
      expect(denyReason(p, env()), p).toBeUndefined();
    }
  });
  it("denies $MCPBOX_HOME's default without the variable", () => {
    expect(denyReason(`${home}/.mcpbox/run`, env({ vars: {} }))?.what).toContain("$MCPBOX_HOME (~/.mcpbox)");
  });
  it("compares case-insensitively where the file system does", () => {
    const ci = env({ caseInsensitive: () => true });
    expect(denyReason(`${home}/.SSH`, ci)?.what).toBe("~/.ssh");
    expect(denyReason("/ETC", ci)?.what).toBe("/etc");
    expect(denyReason(`${home}/.SSH`, env())).toBeUndefined();
  });
  it("denies a symlinked credential folder at its target", () => {
    const linked = env({ realpath: (p) => (p === `${home}/.ssh` ? "/vault/ssh" : p) });
    expect(denyReason("/vault/ssh/id_rsa", linked)?.what).toBe("~/.ssh");
  });
  it("reads the DOCKER_HOST socket's folder", () => {
    expect(unixSocketDir("unix:///var/folders/x/docker.sock")).toBe("/var/folders/x");
    expect(unixSocketDir("tcp://127.0.0.1:2375")).toBeUndefined();
  });
  it("detects the file system's case rule", () => {
    expect(isCaseInsensitive("/anything", "darwin")).toBe(true);
    expect(isCaseInsensitive("/anything", "win32")).toBe(true);
    expect(isCaseInsensitive(import.meta.dirname, "linux")).toBe(false);
  });
});
