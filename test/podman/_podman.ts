/** What the podman project's tests share: the socket (vitest.config.ts sets DOCKER_HOST to it) and host-side probes. */
import fs from "node:fs";
import { expect } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { engineKind } from "../../src/docker/engine-kind.ts";

export const PODMAN_SOCKET = process.env.MCPBOX_PODMAN_SOCKET ?? "/run/mcpbox-podman/podman.sock";

/** Fails a test file at once when its engine client is not Podman's (DOCKER_HOST unset or pointing elsewhere). */
export async function expectPodman(): Promise<void> {
  expect(process.env.DOCKER_HOST, "vitest.config.ts sets DOCKER_HOST for the podman project").toBe(`unix://${PODMAN_SOCKET}`);
  expect(await engineKind(engine())).toBe("podman");
}

/** A host process's capability sets and no_new_privs flag, from /proc (the test runs as root, as CI does). */
export function processSecurity(pid: number): { CapEff: string; CapPrm: string; CapBnd: string; NoNewPrivs: string } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)$`, "m").exec(status)?.[1] ?? "?";
  return { CapEff: field("CapEff"), CapPrm: field("CapPrm"), CapBnd: field("CapBnd"), NoNewPrivs: field("NoNewPrivs") };
}

/** A process and all of its descendants (the container's init and the server it runs). */
export function processTree(pid: number): number[] {
  const children = (p: number): number[] => {
    const tasks = fs.existsSync(`/proc/${p}/task`) ? fs.readdirSync(`/proc/${p}/task`) : [];
    return tasks.flatMap((t) => fs.readFileSync(`/proc/${p}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number));
  };
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]!));
  return all;
}
