/**
 * Global setup of the "podman" project: Podman's Docker API must answer on its socket (scripts/ci/podman.sh starts
 * it), be Podman and not another engine, and hold the base images; and the binary must be built. Anything missing
 * fails the run with the command that fixes it: these tests are never skipped.
 */
import fs from "node:fs";
import path from "node:path";
import Docker from "dockerode";
import { engineKind } from "../../src/docker/engine-kind.ts";
import { imageExists } from "../../src/docker/images.ts";
import { DEFAULTS } from "../../src/config/resolve.ts";
import { messageOf } from "../../src/errors.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const PODMAN_SOCKET = process.env.MCPBOX_PODMAN_SOCKET ?? "/run/mcpbox-podman/podman.sock"; // as vitest.config.ts
const FIX = "start it with `sudo bash scripts/ci/podman.sh` (.ci/run and `scripts/setup.sh test` do); the podman project is never skipped";

export default async function setup(): Promise<void> {
  const docker = new Docker({ socketPath: PODMAN_SOCKET });
  try {
    await docker.ping();
  } catch (e) {
    throw new Error(`the podman tests need Podman's Docker API at unix://${PODMAN_SOCKET}, which did not answer /_ping: ${messageOf(e)}\n  ${FIX}`);
  }
  if ((await engineKind(docker)) !== "podman") {
    throw new Error(`the engine at unix://${PODMAN_SOCKET} is not Podman (its /_ping has no Libpod-Api-Version header)\n  ${FIX}`);
  }
  const missing: string[] = [];
  for (const image of Object.values(DEFAULTS.baseImages)) if (!(await imageExists(docker, image))) missing.push(image);
  if (missing.length > 0) throw new Error(`Podman lacks the base images ${missing.join(", ")}: \`sudo bash scripts/ci/podman.sh\` loads them from Docker`);
  if (!process.env.MCPBOX_TEST_FROM_SOURCE && !fs.existsSync(path.join(REPO, "dist/mcpbox"))) {
    throw new Error("the podman tests need the built binary dist/mcpbox: run `npm run build` first (npm test does)");
  }
}
