/**
 * `mcpbox config --mode direct` for real: the `docker run` line a client would launch starts a container whose
 * inspected settings (network, read-only root, user, capabilities, security options, pids, memory and swap, CPUs,
 * mounts, tmpfs, init, ulimits, labels, command, environment) equal those of the container the gateway creates
 * from containerOptions for the same server. Both run the local node:24-bookworm-slim image.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ContainerInspectInfo } from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { imageExists } from "../src/docker/images.ts";
import { containerOptions } from "../src/policy/run.ts";
import { startServerContainer, type ServerContainer } from "../src/docker/container.ts";
import { loadConfig } from "../src/config/load.ts";
import { LABEL } from "../src/policy/labels.ts";

const REPO = path.resolve(import.meta.dirname, "..");
const MAIN = path.join(REPO, "src", "cli", "main.ts");
const IMAGE = "node:24-bookworm-slim";
const NAME = `probe-${randomBytes(4).toString("hex")}`;
const SECRET = `direct-secret-${randomBytes(6).toString("hex")}`;

let tmp: string;
let client: ChildProcess | undefined;
let gateway: ServerContainer | undefined;

const CONFIG = `import { defineConfig } from "mcpbox";

export default defineConfig({
  servers: {
    "${NAME}": {
      image: "${IMAGE}",
      command: ["node", "-e", "setTimeout(() => {}, 60000)"],
      env: { MODE: "test" },
      secrets: { TOKEN: { env: "HOST_TOKEN" } },
      mounts: [
        { source: "./in", target: "/in" },
        { source: "./out", target: "/out", readOnly: false },
      ],
      limits: { memory: "300m", cpus: 0.5, pids: 100, tmpfs: "32m" },
      user: "1000:1000",
    },
  },
});
`;

beforeAll(async () => {
  if (!(await imageExists(engine(), IMAGE))) throw new Error(`${IMAGE} is missing: the global setup builds it`);
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-direct-")));
  fs.mkdirSync(path.join(tmp, "in"));
  fs.mkdirSync(path.join(tmp, "out"));
  fs.writeFileSync(path.join(tmp, "sandbox.config.ts"), CONFIG);
});

afterAll(async () => {
  client?.kill("SIGKILL");
  await gateway?.stop(1000);
  const docker = engine();
  const mine = await docker.listContainers({ all: true, filters: { label: [`${LABEL.server}=${NAME}`] } });
  for (const c of mine) await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The settings both containers must share. */
function settings(i: ContainerInspectInfo) {
  const h = i.HostConfig;
  const labels = i.Config.Labels ?? {};
  return {
    network: h.NetworkMode,
    readOnlyRoot: h.ReadonlyRootfs,
    user: i.Config.User,
    capDrop: h.CapDrop,
    capAdd: h.CapAdd ?? null,
    privileged: h.Privileged,
    securityOpt: h.SecurityOpt,
    pids: h.PidsLimit,
    memory: h.Memory,
    memorySwap: h.MemorySwap,
    nanoCpus: h.NanoCpus,
    binds: [...(h.Binds ?? [])].sort(),
    mounts: i.Mounts.map((m) => ({ source: m.Source, destination: m.Destination, rw: m.RW })).sort((a, b) =>
      a.destination < b.destination ? -1 : 1,
    ),
    tmpfs: h.Tmpfs,
    init: h.Init,
    ulimits: h.Ulimits,
    labels: { managed: labels[LABEL.managed], server: labels[LABEL.server], configHash: labels[LABEL.configHash] },
    entrypoint: i.Config.Entrypoint,
    cmd: i.Config.Cmd,
    env: [...(i.Config.Env ?? [])].sort(),
    tty: i.Config.Tty,
    openStdin: i.Config.OpenStdin,
    stdinOnce: i.Config.StdinOnce,
  };
}

async function waitForContainer(label: string): Promise<string> {
  const docker = engine();
  for (let i = 0; i < 120; i++) {
    const found = await docker.listContainers({ filters: { label: [label], status: ["running"] } });
    if (found[0]) return found[0].Id;
    if (client?.exitCode !== null && client?.exitCode !== undefined) throw new Error(`docker run exited with ${client.exitCode}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no running container with ${label}`);
}

describe("direct mode", () => {
  it("starts a container with the same hardening as the gateway's", async () => {
    const r = spawnSync(process.execPath, [MAIN, "config", "cursor", "--mode", "direct"], { cwd: tmp, encoding: "utf8", timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const entry = (JSON.parse(r.stdout) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> })
      .mcpServers[`mcpbox-${NAME}`]!;
    expect(path.basename(entry.command)).toBe("docker");
    expect(path.isAbsolute(entry.command)).toBe(true);
    expect(entry.env).toEqual({ TOKEN: "${env:HOST_TOKEN}" });
    expect(r.stdout).not.toContain(SECRET);

    // what Cursor does: expand ${env:HOST_TOKEN} into TOKEN and launch the command with stdin open
    client = spawn(entry.command, entry.args, { env: { ...process.env, TOKEN: SECRET }, stdio: ["pipe", "pipe", "pipe"] });
    const directId = await waitForContainer(`${LABEL.server}=${NAME}`);
    const direct = await engine().getContainer(directId).inspect();

    const { config } = await loadConfig({ configPath: path.join(tmp, "sandbox.config.ts"), cwd: tmp });
    const server = config.servers[0]!;
    const ctx = { session: `clients-direct-${NAME}`, configHash: config.hash, ownerPid: process.pid, image: IMAGE };
    gateway = await startServerContainer(engine(), containerOptions(server, ctx, { TOKEN: SECRET }));
    const viaGateway = await engine().getContainer(gateway.id).inspect();

    expect(settings(direct)).toEqual(settings(viaGateway));
    // the hardening is really there, not merely equal
    expect(settings(direct)).toMatchObject({
      network: "none",
      readOnlyRoot: true,
      user: "1000:1000",
      capDrop: ["ALL"],
      securityOpt: ["no-new-privileges:true"],
      pids: 100,
      memory: 300 * 1024 * 1024,
      memorySwap: 300 * 1024 * 1024,
      nanoCpus: 500_000_000,
      init: true,
      tmpfs: { "/tmp": `rw,noexec,nosuid,nodev,size=${32 * 1024 * 1024}` },
      mounts: [
        { source: path.join(tmp, "in"), destination: "/in", rw: false },
        { source: path.join(tmp, "out"), destination: "/out", rw: true },
      ],
      labels: { managed: "true", server: NAME, configHash: config.hash },
      tty: false,
    });
    expect(settings(direct).env).toContain(`TOKEN=${SECRET}`);
    expect(direct.HostConfig.AutoRemove).toBe(true); // --rm: nobody else removes it
    const gatewayOnly = Object.keys(viaGateway.Config.Labels).filter((k) => !(k in direct.Config.Labels));
    expect(gatewayOnly.sort()).toEqual([LABEL.ownerHost, LABEL.ownerPid, LABEL.session].sort());
  });
});
