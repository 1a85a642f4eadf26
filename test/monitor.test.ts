/**
 * `mcpbox monitor` and `mcpbox ps` end to end: a real gateway (dist/mcpbox serve, spawned by the SDK client) runs two
 * servers in containers; calls go through it; the dashboard runs in tmux at 80x24 and its screen is read with
 * `tmux capture-pane -p`. A container killed with Docker shows its restart on screen; q exits with 0.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { LABEL } from "../src/policy/labels.ts";
import { GatewayEvents } from "../src/monitor/events.ts";
import { publishGateway } from "../src/monitor/publisher.ts";
import { ensureTestImage } from "./helpers/images.ts";
import { connect, mcpboxCommand, project, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";

let p: TestProject;
let gw: Connected;
const tmuxSessions: string[] = [];

beforeAll(async () => {
  const everything = await ensureTestImage("mcpbox-test/everything:latest");
  const filesystem = await ensureTestImage("mcpbox-test/filesystem:latest");
  p = project({
    everything: { image: everything },
    files: { image: filesystem, args: ["/data"], mounts: [{ source: "./data", target: "/data" }] },
  });
  fs.mkdirSync(path.join(p.dir, "data"));
  fs.writeFileSync(path.join(p.dir, "data/hello.txt"), "hello\n");
  gw = await connect(p);
  await waitFor("both servers' tools", async () => {
    const names = (await gw.client.listTools()).tools.map((t) => t.name);
    return names.includes("everything__echo") && names.includes("files__list_allowed_directories");
  }, 60_000);
});

afterAll(async () => {
  for (const s of tmuxSessions) {
    spawnSync("tmux", ["kill-session", "-t", s]);
    fs.rmSync(path.join(os.tmpdir(), `${s}.exit`), { force: true });
  }
  await gw?.client.close();
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

/** The command line of the built binary with this project's MCPBOX_HOME, for a shell inside tmux. */
function shellCommand(args: string, home: string, exitFile: string): string {
  const { command, args: pre } = mcpboxCommand();
  const bin = [command, ...pre].map((a) => `'${a}'`).join(" ");
  // a developer's terminal: Ink draws only a final frame when CI is set, and CI runs this suite with CI=true
  return `env -u CI -u CONTINUOUS_INTEGRATION MCPBOX_HOME='${home}' NO_COLOR=1 ${bin} ${args}; echo $? > '${exitFile}'; sleep 60`;
}

/** Starts a command in a detached 80x24 tmux session; returns how to read its screen and type into it. */
function tmux(args: string, home: string) {
  const name = `mcpbox-monitor-e2e-${process.pid}-${tmuxSessions.length}`;
  const exitFile = path.join(os.tmpdir(), `${name}.exit`);
  fs.rmSync(exitFile, { force: true });
  execFileSync("tmux", ["new-session", "-d", "-s", name, "-x", "80", "-y", "24", shellCommand(args, home, exitFile)]);
  tmuxSessions.push(name);
  return {
    screen: () => execFileSync("tmux", ["capture-pane", "-p", "-t", name], { encoding: "utf8" }),
    /** the screen with its escape sequences (colours) */
    styled: () => execFileSync("tmux", ["capture-pane", "-p", "-e", "-t", name], { encoding: "utf8" }),
    keys: (...keys: string[]) => execFileSync("tmux", ["send-keys", "-t", name, ...keys]),
    exitCode: () => waitFor("the command to exit", () => (fs.existsSync(exitFile) ? fs.readFileSync(exitFile, "utf8").trim() : undefined)),
  };
}

/** The dashboard's row of a server, split into its columns. */
function row(screen: string, server: string) {
  const line = screen.split("\n").find((l) => l.replace(/^›/, " ").startsWith(`  ${server} `));
  if (!line) return undefined;
  const [name, state, up, restarts, oom, cpu, bar, memory, pids, calls, p50, p95, errors] = line.replace(/^›/, " ").trim().split(/\s+/);
  return { name, state, up, restarts: Number(restarts), oom, cpu, bar, memory, pids, calls: Number(calls), p50, p95, errors, line };
}

async function containerOf(server: string) {
  const pidLabel = `${LABEL.ownerPid}=${gw.pid}`;
  const list = await engine().listContainers({ filters: JSON.stringify({ label: [pidLabel, `${LABEL.server}=${server}`] }) });
  return list[0];
}

describe("mcpbox monitor", () => {
  it("shows both servers with state, CPU, memory and the calls made at 80x24, and quits with 0", async () => {
    for (let i = 0; i < 5; i++) await gw.client.callTool({ name: "everything__echo", arguments: { message: `hello ${i}` } });
    for (let i = 0; i < 2; i++) await gw.client.callTool({ name: "files__list_allowed_directories", arguments: {} });

    const ui = tmux("monitor", p.home);
    const first = await waitFor("both servers running with figures", () => {
      const s = ui.screen();
      const ev = row(s, "everything");
      const fs_ = row(s, "files");
      const ready = (r: ReturnType<typeof row>) => r?.state === "running" && /^\d+\.\d$/.test(r.cpu ?? "") && /^\d+(\.\d)?[KMG]$/.test(r.memory ?? "");
      return ready(ev) && ready(fs_) ? s : undefined;
    }, 30_000);
    // fits 80x24: the title is still on the first line and the keys on the last one, nothing wrapped
    const lines = first.replace(/\n$/, "").split("\n");
    expect(lines).toHaveLength(24);
    expect(lines[0]).toMatch(/^mcpbox monitor/);
    expect(lines.filter((l) => l.trim()).at(-1)).toMatch(/q quit/);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
    expect(first).toMatch(/mcpbox monitor · 1 gateway · 2 servers · 7 calls/);
    expect(row(first, "everything")).toMatchObject({ calls: 5, restarts: 0, errors: "0" });
    expect(row(first, "files")).toMatchObject({ calls: 2, restarts: 0, errors: "0" });
    expect(first).toMatch(/ echo +\S+ ok/); // the recent calls pane
    expect(first).toMatch(/↑↓\/jk select +r restart +\/ filter +q quit/);
    expect(ui.styled()).not.toMatch(/\x1b\[[0-9;]*(3[0-7]|9[0-7]|38;[0-9;]+)m/); // NO_COLOR: no colour at all

    ui.keys("q");
    expect(await ui.exitCode()).toBe("0");
  });

  it("shows the restart of a server whose container was killed with docker kill", async () => {
    const ui = tmux("monitor", p.home);
    await waitFor("files running", () => row(ui.screen(), "files")?.state === "running", 30_000);
    const victim = await containerOf("files");
    expect(victim, "the files server's container").toBeDefined();
    await engine().getContainer(victim!.Id).kill();
    const after = await waitFor("the restart on screen", () => {
      const r = row(ui.screen(), "files");
      return r && r.restarts >= 1 && r.state === "running" ? r : undefined;
    }, 120_000);
    expect(after.restarts).toBeGreaterThanOrEqual(1);
    expect((await containerOf("files"))?.Id).not.toBe(victim!.Id);
    ui.keys("q");
    expect(await ui.exitCode()).toBe("0");
  });

  it("restarts the selected server with r", async () => {
    const ui = tmux("monitor", p.home);
    // the first row, everything, is selected
    await waitFor("everything selected and running", () => row(ui.screen(), "everything")?.line.startsWith("› everything running"), 30_000);
    const before = await containerOf("everything");
    ui.keys("r");
    await waitFor("everything restarted from the monitor", () => {
      const r = row(ui.screen(), "everything");
      return r && r.restarts >= 1 && r.state === "running" ? r : undefined;
    }, 120_000);
    expect((await containerOf("everything"))?.Id).not.toBe(before?.Id);
    ui.keys("q");
    expect(await ui.exitCode()).toBe("0");
  });

  it("picks up a gateway that starts later and marks it gone when it goes away, the others going on", async () => {
    const ui = tmux("monitor", p.home);
    await waitFor("the real gateway", () => row(ui.screen(), "everything")?.state === "running", 30_000);
    const events = new GatewayEvents();
    const info = { session: "e2efake1", pid: process.pid, configFile: "/elsewhere/sandbox.config.ts", startedAt: Date.now(), version: "test" };
    const other = await publishGateway(events, info, { restart: async () => {} }, { home: p.home, readStats: async () => undefined });
    try {
      events.emit({ type: "server", at: Date.now(), server: "zeta", state: "running", restarts: 0, startedAt: Date.now(), limits: { memoryBytes: 1 << 28, cpus: 1, pids: 64 } });
      await waitFor("the second gateway on screen", () => /2 gateways · 3 servers/.test(ui.screen()) && row(ui.screen(), "zeta")?.state === "running", 10_000);
    } finally {
      await other.close();
    }
    const screen = await waitFor("the second gateway gone", () => (/gateway e2efake1 · pid \d+ · gone/.test(ui.screen()) ? ui.screen() : undefined), 10_000);
    expect(row(screen, "zeta")?.state).toBe("gone");
    expect(row(screen, "everything")?.state).toBe("running");
    ui.keys("q");
    expect(await ui.exitCode()).toBe("0");
  });

  it("prints a plain summary when stdout is not a terminal", () => {
    const { command, args } = mcpboxCommand();
    const out = execFileSync(command, [...args, "monitor"], { env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" }, encoding: "utf8" });
    expect(out).toMatch(/^gateway \S+ · pid \d+ · up /m);
    expect(out).toMatch(/^everything +running /m);
    expect(out).toMatch(/^files +running /m);

    const session = /^gateway (\S+) /m.exec(out)![1]!;
    const env = { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" };
    expect(execFileSync(command, [...args, "monitor", "--session", session], { env, encoding: "utf8" })).toContain(`gateway ${session} `);
    const missing = spawnSync(command, [...args, "monitor", "--session", "nosuchsession"], { env, encoding: "utf8" });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no running gateway with session nosuchsession/);
    expect(missing.stderr).toMatch(/mcpbox ps/);
  });

  it("says so and exits 0 when no gateway is running", async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-monitor-empty-"));
    try {
      const ui = tmux("monitor", empty);
      expect(await ui.exitCode()).toBe("0");
      expect(ui.screen()).toMatch(/No mcpbox gateway is running/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("mcpbox ps", () => {
  it("lists the gateway and its two containers", () => {
    const { command, args } = mcpboxCommand();
    const env = { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" };
    const doc = JSON.parse(execFileSync(command, [...args, "ps", "--json"], { env, encoding: "utf8" })) as {
      gateways: { session: string; pid: number; config: string; started: string; containers: { id: string; server: string; state: string; image: string }[] }[];
    };
    expect(doc.gateways).toHaveLength(1);
    const g = doc.gateways[0]!;
    expect(g).toMatchObject({ pid: gw.pid, config: p.config });
    expect(g.containers.filter((c) => c.state === "running").map((c) => c.server).sort()).toEqual(["everything", "files"]);
    const text = execFileSync(command, [...args, "ps"], { env, encoding: "utf8" });
    expect(text).toContain(`gateway ${g.session}`);
    expect(text).toMatch(/everything +running +mcpbox-test\/everything:latest/);
  });
});
