/**
 * Shared by the bench sections. A section is scripts/bench/<name>.mjs exporting `default async function run()` that
 * returns rows: { measure, value, unit, p95?, baseline?, goal? }.
 *   baseline: the `measure` of another row of the same section, measured in the same run; printed as a ratio.
 *   goal:     { below: number, text?: string }; printed as met or missed (a benchmark shows, it does not fail).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The project's Node 24, the one embedded in dist/mcpbox. */
export const NODE = fs.realpathSync(path.join(ROOT, "node_modules", ".bin", "node"));
export const BINARY = path.join(ROOT, "dist", "mcpbox");

export function requireBinary() {
  if (!fs.existsSync(BINARY)) throw new Error("dist/mcpbox does not exist: run `npm run build` first");
  return BINARY;
}

/**
 * Wall time of commands, in ms: `warmup` unmeasured rounds, then `runs` measured ones. Each round runs every command
 * once, in turn, so a baseline and what it is compared with see the same machine load. Throws when a command fails,
 * so a broken command never shows as fast. commands: { name: [cmd, ...args] } → { name: { median, p95, samples } }.
 */
export function timeCommands(commands, { runs = 20, warmup = 3, cwd = ROOT, env = process.env } = {}) {
  const once = ([cmd, ...args]) => {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
    return ms;
  };
  const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let round = 0; round < warmup + runs; round++) {
    for (const [name, argv] of Object.entries(commands)) {
      const ms = once(argv);
      if (round >= warmup) samples[name].push(ms);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [k, { median: percentile(v, 50), p95: percentile(v, 95), samples: v }]),
  );
}

export function percentile(samples, p) {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const rank = (p / 100) * (s.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return s[lo] + (s[hi] - s[lo]) * (rank - lo);
}

/** A row for a timed command. */
export const timedRow = (measure, t, extra = {}) => ({ measure, value: t.median, p95: t.p95, unit: "ms", ...extra });

// Runs each command `runs` times (interleaved) and prints, per command, the children's user+sys CPU ms (wait4).
const CPU_PROBE = `
import json, os, subprocess, sys
spec = json.loads(sys.argv[1]); out = {k: [] for k in spec["commands"]}
for _ in range(spec["warmup"] + spec["runs"]):
    for k, argv in spec["commands"].items():
        p = subprocess.Popen(argv, cwd=spec["cwd"], env=spec["env"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = 0
        if status != 0: sys.exit("%s exited with status %d" % (" ".join(argv), status))
        out[k].append((ru.ru_utime + ru.ru_stime) * 1000)
print(json.dumps({k: v[spec["warmup"]:] for k, v in out.items()}))
`;

/**
 * CPU time (user + sys, ms) of commands: unlike wall time it hardly moves when other work shares the machine.
 * Needs python3 (for wait4); returns undefined without it. Same shape as timeCommands.
 */
export function cpuCommands(commands, { runs = 20, warmup = 3, cwd = ROOT, env = process.env } = {}) {
  const spec = JSON.stringify({ commands, runs, warmup, cwd, env });
  const r = spawnSync("python3", ["-c", CPU_PROBE, spec], { encoding: "utf8", maxBuffer: 1 << 24 });
  if (r.error) return undefined;
  if (r.status !== 0) throw new Error(`cpu probe failed: ${r.stderr}`);
  const samples = JSON.parse(r.stdout);
  return Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [k, { median: percentile(v, 50), p95: percentile(v, 95), samples: v }]),
  );
}
