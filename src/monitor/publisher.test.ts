import fs from "node:fs";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GatewayEvents, type GatewayInfo } from "./events.ts";
import { connectGateway } from "./client.ts";
import type { GatewayMessage } from "./protocol.ts";
import { publishGateway, type Publication } from "./publisher.ts";
import { listGateways } from "./paths.ts";
import { newKey } from "./handshake.ts";

let home: string;
let pub: Publication | undefined;
const info: GatewayInfo = { session: "s1", pid: process.pid, configFile: "/x/sandbox.config.ts", startedAt: 1, version: "t" };
const limits = { memoryBytes: 512 << 20, cpus: 1, pids: 100 };

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-pub-"));
});
afterEach(async () => {
  await pub?.close();
  fs.rmSync(home, { recursive: true, force: true });
});

/** Collects messages until `until` is true. */
async function collect(socket: Parameters<typeof connectGateway>[0], until: (ms: GatewayMessage[]) => boolean) {
  const messages: GatewayMessage[] = [];
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const conn = await connectGateway(socket, {
    onMessage: (m) => {
      messages.push(m);
      if (until(messages)) done();
    },
    onClose: () => done(),
  });
  return { conn, messages, finished };
}

describe("publishGateway", () => {
  it("gives a late monitor hello and the snapshot first, then live events", async () => {
    const events = new GatewayEvents();
    pub = await publishGateway(events, info, { restart: async () => {} }, { home, readStats: async () => undefined });
    events.emit({ type: "server", at: 1, server: "a", state: "running", containerId: "c1", restarts: 0, startedAt: 1, limits });
    events.emit({ type: "call", at: 2, server: "a", method: "tools/call", tool: "echo", durationMs: 3, outcome: "ok", bytes: 10 });
    events.emit({ type: "stderr", at: 3, server: "a", line: "hello from a" });
    events.emit({ type: "guard", at: 4, server: "a", tool: "rm", decision: "denied", reason: "deny list" });

    const { conn, messages, finished } = await collect(pub.socket, (ms) => ms.some((m) => m.type === "call"));
    await new Promise((r) => setTimeout(r, 50));
    events.emit({ type: "call", at: 5, server: "a", method: "tools/call", tool: "add", durationMs: 1, outcome: "error", bytes: 1 });
    await finished;
    conn.close();

    expect(messages.map((m) => m.type)).toEqual(["hello", "snapshot", "call"]);
    const snapshot = messages[1] as Extract<GatewayMessage, { type: "snapshot" }>;
    expect(snapshot.servers).toMatchObject([{ server: "a", state: "running", containerId: "c1", restarts: 0, limits }]);
    expect(snapshot.calls).toHaveLength(1);
    expect(snapshot.stderr).toEqual({ a: ["hello from a"] });
    expect(snapshot.guards[0]).toMatchObject({ tool: "rm", decision: "denied" });
    expect(messages[2]).toMatchObject({ v: 1, tool: "add", outcome: "error" });
  });

  it("is reachable only by its user and describes the gateway", async () => {
    pub = await publishGateway(new GatewayEvents(), info, { restart: async () => {} }, { home });
    expect(fs.statSync(path.join(home, "run")).mode & 0o777).toBe(0o700);
    expect(fs.statSync(pub.socket).mode & 0o777).toBe(0o600);
    const [listed] = listGateways(home);
    expect(listed).toEqual({ info, socket: pub.socket, key: expect.stringMatching(/^[\w-]{43}$/) });
    expect(fs.statSync(path.join(home, "run", "s1.json")).mode & 0o777).toBe(0o600); // it holds the key
    await pub.close();
    expect(fs.readdirSync(path.join(home, "run"))).toEqual([]);
  });

  it("passes a restart command to the gateway and reports its failure", async () => {
    const asked: string[] = [];
    const restart = async (server: string) => {
      if (server === "nope") throw new Error("no server named nope");
      asked.push(server);
    };
    pub = await publishGateway(new GatewayEvents(), info, { restart }, { home });
    const { conn } = await collect(pub.socket, () => false);
    await conn.restart("a");
    await expect(conn.restart("nope")).rejects.toThrow("no server named nope");
    conn.close();
    expect(asked).toEqual(["a"]);
  });

  it("polls stats only while a monitor is connected", async () => {
    const events = new GatewayEvents();
    let polls = 0;
    const readStats = async () => {
      polls++;
      return { cpuPercent: 12.5, memoryBytes: 1000, memoryLimitBytes: 2000, pids: 3, oomKilled: false };
    };
    pub = await publishGateway(events, info, { restart: async () => {} }, { home, readStats, statsIntervalMs: 20 });
    events.emit({ type: "server", at: 1, server: "a", state: "running", containerId: "c1", restarts: 0, startedAt: 1, limits });
    await new Promise((r) => setTimeout(r, 100));
    expect(polls).toBe(0);
    const { conn, messages, finished } = await collect(pub.socket, (ms) => ms.filter((m) => m.type === "stats").length >= 2);
    await finished;
    conn.close();
    expect(messages.find((m) => m.type === "stats")).toMatchObject({ server: "a", cpuPercent: 12.5, pids: 3 });
    await new Promise((r) => setTimeout(r, 60));
    const after = polls;
    await new Promise((r) => setTimeout(r, 100));
    expect(polls).toBe(after);
  });

  it("removes what a dead gateway left when it starts", async () => {
    const run = path.join(home, "run");
    fs.mkdirSync(run, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(run, "dead.json"), JSON.stringify({ ...info, session: "dead", pid: 2 ** 22 + 1 }));
    fs.writeFileSync(path.join(run, "dead.sock"), "");
    pub = await publishGateway(new GatewayEvents(), info, { restart: async () => {} }, { home });
    expect(fs.readdirSync(run).sort()).toEqual(["s1.json", "s1.sock"]);
  });
});

describe("the monitor handshake on the socket", () => {
  /** A raw connection: what it receives, after writing `lines`, until the gateway closes it or `ms` pass. */
  async function raw(socket: string, lines: string[], ms = 300) {
    const conn = net.createConnection(socket);
    let got = "";
    conn.on("data", (d) => (got += d.toString()));
    const closed = new Promise<boolean>((r) => {
      conn.on("close", () => r(true));
      setTimeout(() => r(false), ms);
    });
    await new Promise((r) => conn.once("connect", r));
    for (const l of lines) conn.write(`${l}\n`);
    const wasClosed = await closed;
    conn.destroy();
    return { got, wasClosed };
  }

  it("a peer without the key gets a nonce and nothing else, and its commands are not run", async () => {
    const events = new GatewayEvents();
    const asked: string[] = [];
    pub = await publishGateway(events, info, { restart: async (s) => void asked.push(s) }, { home, readStats: async () => undefined });
    events.emit({ type: "call", at: 1, server: "calc", method: "tools/call", tool: "add", durationMs: 5, outcome: "ok", bytes: 1 });
    // only reads (what another Windows user can do on a pipe): the challenge, no hello, no snapshot, no event
    const reader = await raw(pub.socket, []);
    expect(reader.got.trim().split("\n").map((l) => JSON.parse(l).type)).toEqual(["challenge"]);
    expect(reader.got).not.toMatch(/calc|hello|snapshot/);
    // a command, a made-up proof, junk: closed without a word
    for (const line of ['{"v":1,"type":"restart","server":"calc","id":1}', JSON.stringify({ v: 1, type: "auth", nonce: "n".repeat(43), proof: "p".repeat(43) }), "x".repeat(4096)]) {
      const r = await raw(pub.socket, [line]);
      expect(r.wasClosed, line.slice(0, 40)).toBe(true);
      expect(r.got.trim().split("\n").map((l) => JSON.parse(l).type)).toEqual(["challenge"]);
    }
    expect(asked).toEqual([]);
    // the right key still works, and the monitor then sees the call
    const { conn, messages, finished } = await collect(pub.socket, (ms) => ms.some((m) => m.type === "snapshot"));
    await finished;
    conn.close();
    expect(messages.map((m) => m.type)).toEqual(["hello", "snapshot"]);
  });

  it("a monitor believes nothing from an endpoint that does not prove the run file's key", async () => {
    const sock = path.join(home, "fake.sock");
    const key = newKey();
    const fake = (script: (c: net.Socket) => void) => {
      const server = net.createServer(script);
      return new Promise<net.Server>((r) => server.listen(sock, () => r(server)));
    };
    const onMessage = (m: GatewayMessage) => void seen.push(m);
    const seen: GatewayMessage[] = [];
    // an older gateway (or a squatter) that talks at once
    let server = await fake((c) => c.write(`${JSON.stringify({ v: 1, type: "hello", gateway: info })}\n`));
    await expect(connectGateway({ socket: sock, key }, { onMessage, onClose: () => {} })).rejects.toThrow(/without a handshake: it is an older mcpbox/);
    await new Promise((r) => server.close(r));
    // one that answers the auth with a welcome it cannot prove
    server = await fake((c) => {
      c.write(`${JSON.stringify({ v: 1, type: "challenge", nonce: "n".repeat(43) })}\n`);
      c.once("data", () => c.write(`${JSON.stringify({ v: 1, type: "welcome", proof: "p".repeat(43) })}\n${JSON.stringify({ v: 1, type: "hello", gateway: info })}\n`));
    });
    await expect(connectGateway({ socket: sock, key }, { onMessage, onClose: () => {} })).rejects.toThrow(/did not prove it knows the key of its run file/);
    await new Promise((r) => server.close(r));
    expect(seen).toEqual([]);
    await expect(connectGateway({ socket: sock }, { onMessage, onClose: () => {} })).rejects.toThrow(/published no monitor key: it is an older mcpbox/);
  });
});

describe("publishGateway on win32", () => {
  it("never joins a pipe name that exists (a squatter's): it takes a fresh name, and gives up with a clear error after three", async () => {
    // Unix sockets stand in for the pipes: a listen on a taken one fails with EADDRINUSE, as libuv's first pipe instance does
    const names = Array.from({ length: 4 }, (_, i) => path.join(home, `p${i}.sock`));
    const squatted = await Promise.all(names.slice(0, 3).map((n) => new Promise<net.Server>((r) => { const s = net.createServer(); s.listen(n, () => r(s)); })));
    let connections = 0;
    squatted.forEach((s) => s.on("connection", () => connections++));
    try {
      const taken = [...names];
      const err = await publishGateway(new GatewayEvents(), info, { restart: async () => {} }, { home, platform: "win32", pipeNames: () => taken.shift()! }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toBe(`the monitor pipes ${names[2]} and 2 other fresh random names exist already: another program creates them`);
      expect(fs.existsSync(path.join(home, "run", "s1.json"))).toBe(false);
      const fresh = names.slice(2);
      pub = await publishGateway(new GatewayEvents(), info, { restart: async () => {} }, { home, platform: "win32", pipeNames: () => fresh.shift()! });
      expect(pub.socket).toBe(names[3]);
      const entry = JSON.parse(fs.readFileSync(path.join(home, "run", "s1.json"), "utf8"));
      expect(entry.monitor).toEqual({ key: expect.stringMatching(/^[\w-]{43}$/), pipe: names[3] });
      const { conn, finished } = await collect({ socket: pub.socket, key: entry.monitor.key }, (ms) => ms.some((m) => m.type === "snapshot"));
      await finished;
      conn.close();
      expect(connections).toBe(0);
    } finally {
      await Promise.all(squatted.map((s) => new Promise((r) => s.close(r))));
    }
  });
});

describe("publishGateway against planted files", () => {
  it("refuses a run folder others can write, and never removes what is not a socket at its socket's path", async () => {
    fs.mkdirSync(path.join(home, "run"), { mode: 0o700 });
    fs.chmodSync(path.join(home, "run"), 0o777);
    await expect(publishGateway(new GatewayEvents(), info, { restart: async () => {} }, { home })).rejects.toThrow(/run is writable by group and others/);
    fs.chmodSync(path.join(home, "run"), 0o700);
    const victim = path.join(home, "victim");
    fs.writeFileSync(victim, "precious");
    fs.symlinkSync(victim, path.join(home, "run", "s1.sock"));
    await expect(publishGateway(new GatewayEvents(), info, { restart: async () => {} }, { home })).rejects.toThrow(/s1\.sock exists and is not a socket/);
    expect(fs.readFileSync(victim, "utf8")).toBe("precious");
    expect(fs.lstatSync(path.join(home, "run", "s1.sock")).isSymbolicLink()).toBe(true);
  });
});
