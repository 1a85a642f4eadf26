/**
 * The official MCP conformance suite (issue 14 item 4): every active server scenario of `@modelcontextprotocol/
 * conformance` 0.1.16 (2025-11-25) and 0.2.0-alpha.12 (its active suite, and the frozen set 2026-07-28 requires)
 * against the project's own fixture (test/fixtures/conformance, SDK v2), with an empty expected-failures list:
 *   - the fixture alone over its own HTTP entry, no mcpbox: the baseline that proves the fixture passes by itself;
 *   - (a) `mcpbox serve --http` with the fixture sandboxed as a `build:` server, `prefix: false` (transparent);
 *   - (b) the same aggregated beside server-everything: the fixture keeps `prefix: false` because the scenarios call
 *     its tools, prompts and resources by their own names (toolhive's aggregated leg does the same by switching its
 *     conflict strategy to keep names), while server-everything keeps its default prefix, so every name the suite
 *     sees from it is `everything__…` and nothing collides; the scenarios then see a gateway that serves more than the
 *     fixture (longer lists, the gateway's own serverInfo);
 *   - (c) `mcpbox serve` over stdio through a stdio-to-HTTP harness (_stdio-bridge.ts), counting only the scenarios
 *     where the transport does not matter (the HTTP-transport ones test the harness there, not mcpbox); the same
 *     harness in front of the fixture alone is part of the baseline.
 * The 2026-07-28 legs run through mcpbox like the others: the gateway speaks that revision to the client and to the
 * fixture (probed, issue 14 item 1), so its `input_required` answers reach the suite as the fixture wrote them.
 * Each run prints one summary line (`conformance <suite> <leg> <setup>: passed/total`) for CI.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTestImage } from "../helpers/images.ts";
import { containersOf, mcpboxCommand, project, REPO, waitFor, type TestProject } from "../helpers/gateway.ts";
import { bundleFixture, fixtureContext, fixtureServer } from "./_fixture.ts";
import { startBridge, type Bridge } from "./_stdio-bridge.ts";
import { failureReport, warningReport, inScope, runSuite, summaryLine, TRANSPORT_SCENARIOS, type Leg, type SuiteRun, type SuiteVersion } from "./_suite.ts";

const LEGS: [SuiteVersion, Leg][] = [
  ["0.1.16", "active"],
  ["0.2.0-alpha.12", "active"],
];
const MODERN: [SuiteVersion, Leg] = ["0.2.0-alpha.12", "requirements-2026-07-28"];
const NO_EXCLUSIONS: ReadonlySet<string> = new Set();

let context: string;

beforeAll(async () => {
  context = await fixtureContext();
});

afterAll(() => {
  if (context) fs.rmSync(context, { recursive: true, force: true });
});

/** Runs one leg, prints its summary line, and expects every in-scope scenario to pass and the suite to agree. */
async function expectLeg(suite: SuiteVersion, leg: Leg, url: string, setup: string, exclude = NO_EXCLUSIONS): Promise<SuiteRun> {
  const run = await runSuite(suite, leg, url);
  console.log(summaryLine(run, setup, exclude));
  const scope = inScope(run, exclude);
  expect(scope.length, `the suite ran no scenarios:\n${run.output.slice(-3000)}`).toBeGreaterThan(0);
  expect(failureReport(run, exclude), `${setup}: scenarios failed`).toBe("");
  if (exclude.size === 0) expect(run.exitCode, `the suite's own verdict:\n${warningReport(run)}\n${run.output.slice(-3000)}`).toBe(0);
  return run;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Served {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** `mcpbox serve --http` on a free loopback port, without a token (the suite sends none), once it listens. */
async function serveHttp(p: TestProject): Promise<Served> {
  const port = await freePort();
  const { command, args } = mcpboxCommand();
  const child = spawn(command, [...args, "serve", "-c", p.config, "--http", `127.0.0.1:${port}`, "--allow-unauthenticated"], {
    cwd: p.dir,
    env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  try {
    await waitFor(
      "serve --http listening",
      () => {
        if (child.exitCode !== null) throw new Error(`mcpbox serve --http exited (${child.exitCode}):\n${stderr}`);
        return stderr.includes(`http://127.0.0.1:${port}/mcp`) || undefined;
      },
      60_000,
    );
  } catch (e) {
    child.kill("SIGTERM"); // never leave a gateway (and its containers) behind
    await exited;
    throw e;
  }
  return {
    child,
    url: `http://127.0.0.1:${port}/mcp`,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

describe("the conformance fixture by itself (no mcpbox)", () => {
  let fixture: ChildProcess;
  let url: string;
  let dir: string;
  let harness: Bridge;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-conformance-direct-"));
    const bundle = await bundleFixture(dir);
    const port = await freePort();
    fixture = spawn(path.join(REPO, "node_modules/.bin/node"), [bundle, "--http", String(port)], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    fixture.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    await waitFor("the fixture's HTTP entry", () => stderr.includes("serving on http://") || undefined);
    url = `http://127.0.0.1:${port}/mcp`;
    harness = await startBridge({ command: path.join(REPO, "node_modules/.bin/node"), args: [bundle] });
  });

  afterAll(async () => {
    fixture?.kill();
    await harness?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const [suite, leg] of [...LEGS, MODERN]) {
    it(`passes ${suite} ${leg} over its own HTTP entry`, async () => {
      await expectLeg(suite, leg, url, "fixture-direct http");
    });
  }

  // the harness of (c) with nothing between it and the fixture: what (c) measures through mcpbox is mcpbox's
  for (const [suite, leg] of [...LEGS, MODERN]) {
    it(`passes ${suite} ${leg} over stdio through the harness`, async () => {
      await expectLeg(suite, leg, harness.url, "fixture-direct stdio", TRANSPORT_SCENARIOS);
    });
  }
});

describe("(a) mcpbox serve --http, the fixture alone, prefix: false", () => {
  let p: TestProject;
  let served: Served;

  beforeAll(async () => {
    p = project({ conf: fixtureServer(context, { prefix: false, clientRequests: { sampling: true } }) });
    served = await serveHttp(p);
  });

  afterAll(async () => {
    const pid = served?.child.pid;
    await served?.stop();
    if (pid) expect(await containersOf(pid)).toEqual([]);
    if (p) fs.rmSync(p.dir, { recursive: true, force: true });
  });

  for (const [suite, leg] of LEGS) {
    it(`passes ${suite} ${leg}`, async () => {
      await expectLeg(suite, leg, served.url, "http prefix:false");
    });
  }

  it(`passes ${MODERN[0]} ${MODERN[1]}`, async () => {
    await expectLeg(MODERN[0], MODERN[1], served.url, "http prefix:false");
  });
});

describe("(b) mcpbox serve --http, the fixture (prefix: false) aggregated beside server-everything (prefixed)", () => {
  let p: TestProject;
  let served: Served;

  beforeAll(async () => {
    const everything = await ensureTestImage("mcpbox-test/everything:latest");
    p = project({
      conf: fixtureServer(context, { prefix: false, clientRequests: { sampling: true } }),
      everything: { image: everything, clientRequests: { sampling: true } },
    });
    served = await serveHttp(p);
  });

  afterAll(async () => {
    const pid = served?.child.pid;
    await served?.stop();
    if (pid) expect(await containersOf(pid)).toEqual([]);
    if (p) fs.rmSync(p.dir, { recursive: true, force: true });
  });

  for (const [suite, leg] of LEGS) {
    it(`passes ${suite} ${leg}`, async () => {
      await expectLeg(suite, leg, served.url, "http aggregated");
    });
  }

  it(`passes ${MODERN[0]} ${MODERN[1]}`, async () => {
    await expectLeg(MODERN[0], MODERN[1], served.url, "http aggregated");
  });
});

describe("(c) mcpbox serve over stdio through the stdio-to-HTTP harness, the fixture alone, prefix: false", () => {
  let p: TestProject;
  let bridge: Bridge;

  beforeAll(async () => {
    p = project({ conf: fixtureServer(context, { prefix: false, clientRequests: { sampling: true } }) });
    const { command, args } = mcpboxCommand();
    bridge = await startBridge({ command, args: [...args, "serve", "-c", p.config], env: { MCPBOX_HOME: p.home, NO_COLOR: "1" }, cwd: p.dir });
  });

  afterAll(async () => {
    await bridge?.close();
    if (p) fs.rmSync(p.dir, { recursive: true, force: true });
  });

  for (const [suite, leg] of LEGS) {
    it(`passes ${suite} ${leg} (the scenarios where the transport does not matter)`, async () => {
      await expectLeg(suite, leg, bridge.url, "stdio prefix:false", TRANSPORT_SCENARIOS);
    });
  }

  it(`passes ${MODERN[0]} ${MODERN[1]} (the scenarios where the transport does not matter)`, async () => {
    await expectLeg(MODERN[0], MODERN[1], bridge.url, "stdio prefix:false", TRANSPORT_SCENARIOS);
  });
});
