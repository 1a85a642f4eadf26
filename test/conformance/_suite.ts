/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, two pinned versions installed under
 * npm aliases) against a URL and reads its per-scenario results (`-o <dir>`: one folder per scenario holding
 * checks.json). An empty expected-failures baseline is passed, so the suite's own verdict (its exit code) is strict.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { REPO } from "../helpers/gateway.ts";

/** The suite versions: 0.1.16 carries the 2025-11-25 scenarios, 0.2.0-alpha.12 adds 2026-07-28 (stateless). */
export const SUITES = {
  "0.1.16": "mcp-conformance-2025",
  "0.2.0-alpha.12": "mcp-conformance-2026",
} as const;
export type SuiteVersion = keyof typeof SUITES;

/**
 * One leg of a suite: its default "active" suite (every scenario neither pending nor draft, each at its own dated
 * wire), or the frozen set a revision requires (`--requirements 2026-07-28`: the stateless wire, extension and pending
 * scenarios run but not scored).
 */
export type Leg = "active" | "requirements-2026-07-28";

/** Scenarios that test the HTTP transport itself (Host/Origin, sessions, SSE streams, headers, HTTP statuses). */
export const TRANSPORT_SCENARIOS = new Set([
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
  "server-sse-polling",
  "server-session-lifecycle",
  "server-stateless",
  "http-header-validation",
  "http-custom-header-server-validation",
]);

export interface ScenarioResult {
  scenario: string;
  passed: boolean;
  scored: boolean;
  failures: { id: string; errorMessage: string }[];
  /** checks the suite neither passed nor failed (WARNING): its own verdict may count them */
  warnings: { id: string; status: string; errorMessage: string }[];
}

export interface SuiteRun {
  suite: SuiteVersion;
  leg: Leg;
  exitCode: number;
  ms: number;
  scenarios: ScenarioResult[];
  output: string;
}

const EMPTY_BASELINE = "server: []\n";

export async function runSuite(suite: SuiteVersion, leg: Leg, url: string, timeoutMs = 300_000): Promise<SuiteRun> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-conformance-"));
  const baseline = path.join(out, "expected-failures.yml");
  fs.writeFileSync(baseline, EMPTY_BASELINE);
  const results = path.join(out, "results");
  const cli = path.join(REPO, "node_modules", SUITES[suite], "dist/index.js");
  const args = [cli, "server", "--url", url, "--expected-failures", baseline, "-o", results];
  if (leg === "requirements-2026-07-28") args.push("--requirements", "2026-07-28");
  const started = performance.now();
  const node = path.join(REPO, "node_modules/.bin/node");
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    const child = spawn(node, args, { cwd: out, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (c, signal) => {
      clearTimeout(timer);
      resolve({ code: c ?? (signal ? 128 : 1), output });
    });
  });
  const ms = performance.now() - started;
  try {
    return { suite, leg, exitCode: code, ms, scenarios: readResults(results, scoredBy(suite, leg)), output };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The scenarios a leg scores: all it ran for "active"; for a revision's requirements, the `server:` list of the
 * suite's frozen requirements file (what it runs beside them, extension and pending scenarios, is not scored).
 */
function scoredBy(suite: SuiteVersion, leg: Leg): ((scenario: string) => boolean) {
  if (leg === "active") return () => true;
  const file = path.join(REPO, "node_modules", SUITES[suite], "requirements/2026-07-28.yaml");
  const required = new Set((YAML.parse(fs.readFileSync(file, "utf8")) as { server: string[] }).server);
  return (scenario) => required.has(scenario);
}

function readResults(dir: string, scored: (scenario: string) => boolean): ScenarioResult[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((folder) => {
      const scenario = folder.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
      const file = path.join(dir, folder, "checks.json");
      const checks = fs.existsSync(file)
        ? (JSON.parse(fs.readFileSync(file, "utf8")) as { id: string; status: string; errorMessage?: string }[])
        : [{ id: "checks.json", status: "FAILURE", errorMessage: "the suite wrote no checks for this scenario" }];
      const failures = checks.filter((c) => c.status === "FAILURE").map((c) => ({ id: c.id, errorMessage: c.errorMessage ?? "" }));
      const warnings = checks
        .filter((c) => c.status !== "FAILURE" && c.status !== "SUCCESS" && c.status !== "INFO" && c.status !== "SKIPPED")
        .map((c) => ({ id: c.id, status: c.status, errorMessage: c.errorMessage ?? "" }));
      return { scenario, passed: failures.length === 0, scored: scored(scenario), failures, warnings };
    })
    .sort((a, b) => a.scenario.localeCompare(b.scenario));
}

/** The scored scenarios of a run, minus those a setup leaves out (the transport ones over the stdio harness). */
export function inScope(run: SuiteRun, exclude: ReadonlySet<string> = new Set()): ScenarioResult[] {
  return run.scenarios.filter((s) => s.scored && !exclude.has(s.scenario));
}

/** `conformance 0.1.16 active http prefix:false: 30/30 (12.3 s)`: the line CI shows per run. */
export function summaryLine(run: SuiteRun, setup: string, exclude: ReadonlySet<string> = new Set()): string {
  const scope = inScope(run, exclude);
  const passed = scope.filter((s) => s.passed).length;
  const notCounted = run.scenarios.filter((s) => s.scored && exclude.has(s.scenario)).length;
  const left = notCounted ? ` (+${notCounted} transport scenarios not counted)` : "";
  return `conformance ${run.suite} ${run.leg} ${setup}: ${passed}/${scope.length}${left} in ${(run.ms / 1000).toFixed(1)} s`;
}

/** Checks of the scored scenarios the suite warned about, for the message of its own verdict. */
export function warningReport(run: SuiteRun): string {
  return inScope(run)
    .filter((s) => s.warnings.length > 0)
    .map((s) => `${s.scenario}: ${s.warnings.map((w) => `[${w.id} ${w.status}] ${w.errorMessage.slice(0, 300)}`).join("; ")}`)
    .join("\n");
}

/** Failing scenarios with their failing checks, for an assertion message. */
export function failureReport(run: SuiteRun, exclude: ReadonlySet<string> = new Set()): string {
  return inScope(run, exclude)
    .filter((s) => !s.passed)
    .map((s) => `${s.scenario}: ${s.failures.map((f) => `[${f.id}] ${f.errorMessage.slice(0, 300)}`).join("; ")}`)
    .join("\n");
}
