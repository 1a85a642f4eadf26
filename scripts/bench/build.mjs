/**
 * Template images: each template's final image size next to a naive single-stage image of the same server built in
 * the same run (goal: at most half), the cold build time of each, and the time of a no-op `mcpbox build` (goal < 1 s).
 * The node server comes from the npm registry (through the machine's CA bundle), the python one from the local
 * test fixture. Builds through dist/mcpbox; the images it makes are removed at the end.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, cpuCommands, requireBinary, timeCommands, timedRow } from "./_lib.mjs";

const CA = "/etc/ssl/certs/ca-certificates.crt";
const NODE_PKG = "@modelcontextprotocol/server-memory@2026.8.31";
const SERVERS = { node: "bench-build-node", python: "bench-build-python" };
const NAIVE_LABEL = "mcpbox.bench=build";

export default async function run({ runs = 10 } = {}) {
  const bin = requireBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-bench-build-"));
  const env = { ...process.env, MCPBOX_HOME: path.join(dir, ".mcpbox"), NO_COLOR: "1" };
  try {
    fs.cpSync(path.join(ROOT, "test/fixtures/python-server"), path.join(dir, "python-server"), { recursive: true });
    fs.writeFileSync(
      path.join(dir, "sandbox.config.json"),
      JSON.stringify({
        build: { caCerts: CA },
        servers: {
          [SERVERS.node]: { template: "node", package: NODE_PKG },
          [SERVERS.python]: { template: "python", package: "./python-server" },
        },
      }),
    );
    removeImages(`mcpbox.server=${SERVERS.node}`, `mcpbox.server=${SERVERS.python}`, NAIVE_LABEL);
    const rows = [];
    for (const [template, server] of Object.entries(SERVERS)) {
      const t0 = performance.now();
      const built = mcpboxBuild(bin, server, dir, env);
      const coldSeconds = (performance.now() - t0) / 1000;
      const naive = naiveImage(template, dir);
      const naiveMeasure = `${template}: naive single-stage image`;
      rows.push(
        { measure: naiveMeasure, value: naive / 1e6, unit: "MB" },
        { measure: `${template}: template image`, value: built.size / 1e6, unit: "MB", baseline: naiveMeasure, goal: { below: naive / 2e6, text: "(half the naive image)" } },
        { measure: `${template}: cold mcpbox build`, value: coldSeconds, unit: "s" },
      );
    }
    // --version is the floor: the binary starting; the no-op adds loading the config and two image lookups
    const commands = { version: [bin, "--version"], noop: [bin, "build"] };
    const wall = timeCommands(commands, { runs, warmup: 1, cwd: dir, env });
    const base = "mcpbox --version (baseline)";
    rows.push(timedRow(base, wall.version), timedRow("no-op mcpbox build (2 servers)", wall.noop, { baseline: base, goal: { below: 1000 } }));
    const cpu = cpuCommands(commands, { runs, warmup: 1, cwd: dir, env });
    if (cpu) rows.push(timedRow("no-op mcpbox build, CPU time (user+sys)", cpu.noop, { goal: { below: 1000 } }));
    return rows;
  } finally {
    removeImages(`mcpbox.server=${SERVERS.node}`, `mcpbox.server=${SERVERS.python}`, NAIVE_LABEL);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function mcpboxBuild(bin, server, cwd, env) {
  const r = spawnSync(bin, ["build", server, "--json"], { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`mcpbox build ${server} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout)[0];
}

/** What one would write without mcpbox: the package installed into the base image, one stage. Returns its size. */
function naiveImage(template, dir) {
  const ctx = fs.mkdtempSync(path.join(dir, `naive-${template}-`));
  const lines =
    template === "node"
      ? ["FROM node:24-bookworm-slim", "COPY ca.crt /ca.crt", "ENV NODE_EXTRA_CA_CERTS=/ca.crt", `RUN npm install -g ${NODE_PKG}`, "USER 1000:1000", 'ENTRYPOINT ["mcp-server-memory"]']
      : ["FROM python:3.12-slim-bookworm", "COPY python-server /src", "RUN pip install --no-build-isolation /src", "USER 1000:1000", 'ENTRYPOINT ["mcpbox-echo-server"]'];
  if (template === "node") fs.copyFileSync(CA, path.join(ctx, "ca.crt"));
  else fs.cpSync(path.join(dir, "python-server"), path.join(ctx, "python-server"), { recursive: true });
  fs.writeFileSync(path.join(ctx, "Dockerfile"), `${lines.join("\n")}\nLABEL ${NAIVE_LABEL}\n`);
  const tag = `mcpbox-bench/naive-${template}:latest`;
  const r = spawnSync("docker", ["build", "-q", "--force-rm", "-t", tag, ctx], { encoding: "utf8", env: { ...process.env, DOCKER_BUILDKIT: "0" } });
  if (r.status !== 0) throw new Error(`naive ${template} image failed: ${r.stderr}`);
  return Number(spawnSync("docker", ["image", "inspect", tag, "--format", "{{.Size}}"], { encoding: "utf8" }).stdout.trim());
}

function removeImages(...labels) {
  for (const label of labels) {
    const ids = spawnSync("docker", ["images", "-q", "--filter", `label=${label}`], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
    if (ids.length > 0) spawnSync("docker", ["rmi", "-f", ...new Set(ids)], { stdio: "ignore" });
  }
}
