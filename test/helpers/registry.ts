/**
 * A container registry on loopback (127.0.0.1:5000) for pull tests: the one already answering there, or Debian's
 * `docker-registry` started here with a loopback-only, no-auth config (stopped again by the returned `stop`).
 * Docker treats 127.0.0.1:* as an insecure registry, so no TLS is needed. Fails loudly when none can be had.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const REGISTRY = "127.0.0.1:5000";
const BINARY = "docker-registry";

export interface Registry {
  address: string;
  stop: () => Promise<void>;
}

export async function ensureRegistry(): Promise<Registry> {
  const status = await answers();
  if (status === 200) return { address: REGISTRY, stop: async () => {} };
  if (status !== undefined) {
    // Debian's packaged service listens on :5000 with htpasswd auth: not one these tests can push to
    throw new Error(`the registry at ${REGISTRY} answers /v2/ with HTTP ${status} (auth?): stop it (systemctl stop docker-registry) so the tests can start an open one on loopback`);
  }
  const found = spawnSync("sh", ["-c", `command -v ${BINARY}`], { encoding: "utf8" });
  if (found.status !== 0) {
    throw new Error(`no registry answers at ${REGISTRY} and ${BINARY} is not installed: apt-get install -y docker-registry (.ci/run does)`);
  }
  // blobs are kept between runs (a private folder of this user), so a second push of the same layers is instant
  const root = path.join(os.tmpdir(), `mcpbox-test-registry-${process.getuid?.() ?? "user"}`);
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const config = path.join(root, "config.yml");
  fs.writeFileSync(config, registryConfig(path.join(root, "data")));
  const child = spawn(found.stdout.trim(), ["serve", config], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const deadline = Date.now() + 10_000;
  while ((await answers()) !== 200) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`${BINARY} did not start on ${REGISTRY}:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { address: REGISTRY, stop: () => stopChild(child) };
}

/** Loopback only, no auth, deletes allowed; the log quiet. */
export function registryConfig(dataDir: string): string {
  return [
    "version: 0.1",
    "log:",
    "  level: error",
    "  accesslog:",
    "    disabled: true",
    "storage:",
    "  filesystem:",
    `    rootdirectory: ${dataDir}`,
    "  delete:",
    "    enabled: true",
    "http:",
    `  addr: ${REGISTRY}`,
    "",
  ].join("\n");
}

/** The HTTP status of GET /v2/, or undefined when nothing answers. */
async function answers(): Promise<number | undefined> {
  try {
    const r = await fetch(`http://${REGISTRY}/v2/`, { signal: AbortSignal.timeout(1000) });
    return r.status;
  } catch {
    return undefined;
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
