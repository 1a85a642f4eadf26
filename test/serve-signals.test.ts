/**
 * `mcpbox serve` stops at once on SIGINT or SIGTERM at any moment (SPEC 4.2), also before a client has initialized:
 * right after spawn, while the config loads, while an image builds, and once the containers run but nobody has
 * sent initialize. Each time it exits within 5 s and leaves no container of its own.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { nodeBaseImage } from "./helpers/images.ts";
import { containersOf, FIXTURES, mcpboxCommand, project, waitFor, type TestProject } from "./helpers/gateway.ts";

const SIGNALS = ["SIGINT", "SIGTERM"] as const;
let node: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  node = await nodeBaseImage();
});

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

interface Serve {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  stderr: () => string;
}

/** `mcpbox serve` with stdin held open and never written to: no client ever initializes. */
function serve(p: TestProject): Serve {
  const { command, args } = mcpboxCommand();
  const child = spawn(command, [...args, "serve", "-c", p.config], { cwd: p.dir, env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" } });
  children.push(child);
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return { child, pid: child.pid!, stderr: () => stderr };
}

/** Sends the signal and waits (at most 5 s) for the exit. */
async function stopWith(s: Serve, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const t0 = Date.now();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => s.child.once("exit", (code, sig) => resolve({ code, signal: sig })));
  s.child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`serve did not exit within 5 s of ${signal}; stderr:\n${s.stderr()}`)), 5000)));
  try {
    return { ...(await Promise.race([exited, late])), ms: Date.now() - t0 };
  } finally {
    clearTimeout(timer);
  }
}

const rawServer = () => ({ image: node, command: ["node", "/fixture/raw-server.mjs"], mounts: [{ source: FIXTURES, target: "/fixture" }] });

describe("serve stops at once", () => {
  it.each(SIGNALS)("on %s right after spawn", async (signal) => {
    const s = serve(project({ raw: rawServer() }));
    await new Promise((r) => s.child.once("spawn", r));
    const r = await stopWith(s, signal);
    expect(r.ms).toBeLessThan(5000);
    expect(await containersOf(s.pid)).toEqual([]);
  });

  it.each(SIGNALS)("on %s while the config loads (exit 0, stopping said)", async (signal) => {
    const p = project({});
    const marker = path.join(p.dir, "loading");
    // a config module that takes its time: the signal arrives while serve is still loading it
    fs.writeFileSync(
      path.join(p.dir, "sandbox.config.mjs"),
      `import fs from "node:fs";\nfs.writeFileSync(${JSON.stringify(marker)}, "");\nawait new Promise((r) => setTimeout(r, 30000));\n` +
        `export default ${JSON.stringify({ servers: { raw: rawServer() } })};\n`,
    );
    fs.rmSync(p.config);
    const s = serve({ ...p, config: path.join(p.dir, "sandbox.config.mjs") });
    await waitFor("the config to be loading", () => fs.existsSync(marker) || undefined);
    const r = await stopWith(s, signal);
    expect(r, s.stderr()).toMatchObject({ code: 0, signal: null });
    expect(s.stderr()).toContain(`mcpbox: stopping (${signal})`);
  });

  it.each(SIGNALS)("on %s once the containers run, before any initialize, and removes them", async (signal) => {
    const s = serve(project({ raw: rawServer(), raw2: rawServer() }));
    await waitFor("both containers running", async () => ((await containersOf(s.pid)).filter((c) => c.State === "running").length === 2 ? true : undefined));
    const r = await stopWith(s, signal);
    expect(r, s.stderr()).toMatchObject({ code: 0, signal: null });
    expect(await containersOf(s.pid)).toEqual([]);
  });

  it("on SIGTERM after its stderr reader is gone (a dead client), without spinning, and removes its containers", async () => {
    const s = serve(project({ raw: rawServer() }));
    await waitFor("the container running", async () => ((await containersOf(s.pid)).some((c) => c.State === "running") ? true : undefined));
    s.child.stderr.destroy(); // the reading end closes: every later write of the gateway to stderr fails with EPIPE
    const r = await stopWith(s, "SIGTERM"); // "stopping (SIGTERM)" is written to the dead pipe
    expect(r).toMatchObject({ code: 0, signal: null });
    expect(await containersOf(s.pid)).toEqual([]);
  });

  it("on SIGTERM while an image builds", async () => {
    const p = project({ slow: { build: { context: "./ctx" } } });
    fs.mkdirSync(path.join(p.dir, "ctx"), { mode: 0o755 });
    // a step no cache has: the build is still running when the signal comes
    const step = `RUN echo ${randomBytes(8).toString("hex")} && sleep 60`;
    fs.writeFileSync(path.join(p.dir, "ctx/Dockerfile"), `FROM ${node}\n${step}\nENTRYPOINT ["node", "-e", "setInterval(() => {}, 1000)"]\n`);
    const s = serve(p);
    await waitFor("the slow build step", () => s.stderr().includes(step) || undefined, 60_000);
    const r = await stopWith(s, "SIGTERM");
    expect(r, s.stderr()).toMatchObject({ code: 0, signal: null });
    expect(await containersOf(s.pid)).toEqual([]);
  });
});
