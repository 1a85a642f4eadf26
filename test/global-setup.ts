/**
 * Global setup of the end-to-end tests: they need a Docker engine, the templates' default base images and the
 * built binary. A missing engine or binary fails the run loudly (never a skip); missing base images are built
 * with scripts/ci/base-images.sh, so `npm test` works on a fresh dev machine too. Quick when everything exists.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { connectEngine, engine } from "../src/docker/engine.ts";
import { imageExists } from "../src/docker/images.ts";
import { DEFAULTS } from "../src/config/resolve.ts";
import { messageOf } from "../src/errors.ts";

const REPO = path.resolve(import.meta.dirname, "..");
const BINARY = path.join(REPO, "dist", "mcpbox");
const BASE_IMAGES_SCRIPT = path.join(REPO, "scripts", "ci", "base-images.sh");

export default async function setup(): Promise<void> {
  await requireEngine();
  requireBinary();
  await ensureBaseImages();
}

async function requireEngine(): Promise<void> {
  try {
    await connectEngine();
  } catch (e) {
    const hint = (e as { hint?: string }).hint;
    throw new Error(
      `end-to-end tests need a running Docker engine: ${messageOf(e)}${hint ? `\n  hint: ${hint}` : ""}\n` +
        "  (CI starts one with .ci/run; they are never skipped)",
    );
  }
}

function requireBinary(): void {
  if (!fs.existsSync(BINARY)) {
    throw new Error(`end-to-end tests need the built binary ${path.relative(REPO, BINARY)}: run \`npm run build\` first (npm test does)`);
  }
}

async function ensureBaseImages(): Promise<void> {
  const wanted = Object.values(DEFAULTS.baseImages);
  const missing: string[] = [];
  for (const image of wanted) if (!(await imageExists(engine(), image))) missing.push(image);
  if (missing.length === 0) return;
  process.stderr.write(`global setup: base images missing (${missing.join(", ")}): running scripts/ci/base-images.sh\n`);
  const result = spawnSync("bash", [BASE_IMAGES_SCRIPT], { cwd: REPO, stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) {
    throw new Error(
      `building the base images ${missing.join(", ")} failed (scripts/ci/base-images.sh exited with ${result.status ?? result.signal}); ` +
        "it needs root, debootstrap and Debian's mirror, or `docker pull` them from a registry",
    );
  }
}
