/**
 * `npm run bench [-- <section>...] [--json] [--runs N]`: runs every section in scripts/bench/ (or the named ones) and
 * prints each figure with its ratio to a baseline measured in the same run, and the machine's load average before and
 * after (a figure taken under load says so). See scripts/bench/_lib.mjs for the rows. `npm run bench -- costs` is
 * issue 15's table: every goal with its baseline, ratio, and met or missed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./bench/_lib.mjs";

const dir = path.join(ROOT, "scripts", "bench");
const available = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".mjs") && !f.startsWith("_"))
  .map((f) => f.slice(0, -4))
  .sort();

const args = process.argv.slice(2);
const json = args.includes("--json");
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : undefined;
const wanted = args.filter((a, i) => !a.startsWith("--") && !(runsAt >= 0 && i === runsAt + 1));
const unknown = wanted.filter((s) => !available.includes(s));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown section ${unknown.join(", ")}; sections: ${available.join(", ")}\n`);
  process.exit(2);
}

const results = {};
let failed = false;
for (const name of wanted.length > 0 ? wanted : available) {
  const mod = await import(pathToFileURL(path.join(dir, `${name}.mjs`)).href);
  process.stderr.write(`bench: ${name}...\n`);
  try {
    const before = os.loadavg();
    const rows = withRatios(await mod.default(runs === undefined ? {} : { runs }));
    const load = { before, after: os.loadavg() };
    results[name] = { rows, load };
    if (!json) print(name, rows, load);
  } catch (e) {
    failed = true;
    process.stderr.write(`bench: ${name} failed: ${e instanceof Error ? e.message : String(e)}\n`);
  }
}
if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exitCode = failed ? 1 : 0;

function withRatios(rows) {
  return rows.map((r) => {
    const base = r.baseline === undefined ? undefined : rows.find((b) => b.measure === r.baseline);
    const ratio = base ? r.value / base.value : undefined;
    const goalMet = r.goal ? meets(r.goal, r.value, ratio) : undefined;
    return { ...r, ...(ratio === undefined ? {} : { ratio }), ...(goalMet === undefined ? {} : { goalMet }) };
  });
}

/** goal: { below } (value < below), { atMost } (value <= atMost), { ratioAtMost } or { ratioAtLeast } (of the baseline). */
function meets(goal, value, ratio) {
  if (goal.below !== undefined) return value < goal.below;
  if (goal.atMost !== undefined) return value <= goal.atMost;
  if (ratio === undefined) return false;
  return goal.ratioAtMost !== undefined ? ratio <= goal.ratioAtMost : ratio >= goal.ratioAtLeast;
}

function goalText(goal, unit) {
  const fmt = (v) => `${v.toFixed(1)} ${unit}`;
  const bound =
    goal.below !== undefined ? `< ${fmt(goal.below)}` : goal.atMost !== undefined ? `<= ${fmt(goal.atMost)}` : goal.ratioAtMost !== undefined ? `<= ${goal.ratioAtMost.toFixed(2)}x` : `>= ${goal.ratioAtLeast.toFixed(2)}x`;
  return `goal ${bound}${goal.text ? ` ${goal.text}` : ""}`;
}

function print(section, rows, load) {
  const fmt = (v, unit) => (unit === "ms" ? `${v.toFixed(1)} ms` : `${v.toFixed(1)} ${unit}`);
  const table = rows.map((r) => [
    r.measure,
    fmt(r.value, r.unit),
    r.p95 === undefined ? "" : `p95 ${fmt(r.p95, r.unit)}`,
    r.ratio === undefined ? "" : `${r.ratio.toFixed(2)}x ${r.baseline.split(" (")[0]}`,
    r.goal ? `${goalText(r.goal, r.unit)}: ${r.goalMet ? "met" : "MISSED"}` : "",
  ]);
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const avg = (l) => l.map((x) => x.toFixed(2)).join(" ");
  process.stdout.write(`\n${section} (load average ${avg(load.before)} before, ${avg(load.after)} after)\n`);
  for (const row of table) process.stdout.write(`  ${row.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()}\n`);
}
