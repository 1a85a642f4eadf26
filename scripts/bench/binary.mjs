/**
 * The single executable: its size, and the wall time of `--version` and of `validate` on a 20-server config, each
 * next to `node -e 0` of the same Node 24 measured in the same run; then the same commands' CPU time.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NODE, cpuCommands, requireBinary, timeCommands, timedRow } from "./_lib.mjs";

const BASELINE = "node -e 0 (Node 24, baseline)";
const CPU_BASELINE = "CPU time: node -e 0 (baseline)";

export default async function run({ runs = 20 } = {}) {
  const bin = requireBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-bench-binary-"));
  try {
    writeConfig(dir, 20);
    const env = { ...process.env, MCPBOX_HOME: path.join(dir, ".mcpbox"), NO_COLOR: "1" };
    const commands = { node: [NODE, "-e", "0"], version: [bin, "--version"], validate: [bin, "validate"] };
    const t = timeCommands(commands, { runs, cwd: dir, env });
    // wall time depends on what else the machine runs; CPU time (user + sys) much less
    const cpu = cpuCommands(commands, { runs, cwd: dir, env });
    const cpuRows = cpu
      ? [
          timedRow(CPU_BASELINE, cpu.node),
          timedRow("CPU time: mcpbox --version", cpu.version, { baseline: CPU_BASELINE }),
          timedRow("CPU time: mcpbox validate (20 servers)", cpu.validate, { baseline: CPU_BASELINE }),
        ]
      : [];
    return [
      { measure: "size of dist/mcpbox", value: fs.statSync(bin).size / 1e6, unit: "MB" },
      timedRow(BASELINE, t.node),
      timedRow("mcpbox --version", t.version, { baseline: BASELINE }),
      timedRow("mcpbox validate (20 servers)", t.validate, { baseline: BASELINE, goal: { below: 150 } }),
      // issue 15's goal, against the binary's own start measured in the same rounds (costs has it too, beside the rest)
      timedRow("mcpbox validate (20 servers) against --version", t.validate, { baseline: "mcpbox --version", goal: { ratioAtMost: 2 } }),
      ...cpuRows,
      ...(cpu ? [timedRow("CPU time: mcpbox validate against --version", cpu.validate, { baseline: "CPU time: mcpbox --version" })] : []),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A sandbox.config.ts with n servers: image and template ones, each mounting folders that exist. */
export function writeConfig(dir, n) {
  const servers = [];
  for (let i = 0; i < n; i++) {
    for (const sub of ["in", "out"]) fs.mkdirSync(path.join(dir, `data-${i}`, sub), { recursive: true });
    const source =
      i % 3 === 0
        ? `image: "ghcr.io/example/server-${i}:1.${i}.0"`
        : i % 3 === 1
          ? `template: "node", package: "@modelcontextprotocol/server-filesystem@2026.8.31", args: ["/in"]`
          : `template: "python", package: "mcp-server-fetch==2025.${i}.1"`;
    servers.push(`    s${i}: {
      ${source},
      mounts: [
        { source: "./data-${i}/in", target: "/in" },
        { source: "./data-${i}/out", target: "/out", readOnly: false },
      ],
      network: ${i % 4 === 0 ? '"bridge"' : '"none"'},
      limits: { memory: "${256 + i}m", cpus: 0.5, pids: 128 },
      env: { LOG_LEVEL: "info", SERVER_INDEX: "${i}" },
      tools: { deny: ["delete_*", "drop_*"] },
      approve: ["write_*"],
    },`);
  }
  const text = `import { defineConfig } from "mcpbox";

export default defineConfig({
  defaults: { limits: { memory: "512m", cpus: 1 } },
  servers: {
${servers.join("\n")}
  },
});
`;
  fs.writeFileSync(path.join(dir, "sandbox.config.ts"), text);
}
