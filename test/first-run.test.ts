/**
 * The first run as a newcomer meets it: a fresh clone of this repository (its committed HEAD) in a private temp
 * folder (mktemp -d, 0700) under a path with a space, and the README's first command run there as written, with a
 * plain PATH (the machine's node and npm, not this run's). It must succeed end to end against the real engine, print
 * its setup steps, and print no npm or build warning. `npm ci` installs from the npm cache; about a minute.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { REPO } from "./helpers/gateway.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-first-run-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The first command of the README's first sh block, without its comment. */
function readmeCommand(): string {
  const readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
  const block = /```sh\n([^\n]+)/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no ```sh block");
  return block.replace(/\s+#.*$/, "").trim();
}

/** This process's environment as a newcomer's shell has it: no npm run variables, no node_modules/.bin on PATH. */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_|^MCPBOX_|^VITEST|^NODE_/i.test(k)));
  env.PATH = (process.env.PATH ?? "").split(path.delimiter).filter((p) => !p.includes("node_modules")).join(path.delimiter);
  // its audit logs and sockets in the temp folder, not in this user's ~/.mcpbox
  env.MCPBOX_HOME = path.join(tmp, "mcpbox-home");
  return env;
}

function run(command: string, cwd: string, log: string): Promise<{ code: number | null; output: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command], { cwd, env: newcomerEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const add = (d: Buffer) => {
      output += d.toString();
      fs.appendFileSync(log, d);
    };
    child.stdout.on("data", add);
    child.stderr.on("data", add);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output, seconds: (Date.now() - started) / 1000 }));
  });
}

it("clones into a private folder and runs the README's first command there end to end", { timeout: 300_000 }, async () => {
  const command = readmeCommand();
  expect(command).toBe("npm ci && npm run main");
  const parent = path.join(tmp, "first run");
  fs.mkdirSync(parent);
  expect(fs.statSync(tmp).mode & 0o777).toBe(0o700);
  const clone = path.join(parent, "mcpbox");
  const git = spawnSync("git", ["clone", "-q", "--no-local", REPO, clone], { encoding: "utf8" });
  expect(git.status, `git clone failed: ${git.stderr}`).toBe(0);

  const log = path.join(tmp, "first-run.log");
  const r = await run(command, clone, log);
  process.stderr.write(`first run: \`${command}\` in ${clone}: exit ${r.code} after ${r.seconds.toFixed(0)} s (log: ${log})\n`);
  // loud: the whole output's tail when it failed
  expect(r.code, `\`${command}\` failed in ${clone}:\n${r.output.slice(-6000)}`).toBe(0);
  expect(r.output).toMatch(/setup: Docker engine answers/);
  expect(r.output).toMatch(/setup: base images present/);
  expect(r.output).toContain("done: the example ran end to end");
  // npm ci says nothing about engines or install scripts, esbuild nothing about the bundle
  expect(r.output.split("\n").filter((l) => /npm warn|\[WARNING\]|EBADENGINE/i.test(l))).toEqual([]);
});
