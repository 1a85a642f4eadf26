/**
 * `mcpbox serve` against Podman's Docker API (DOCKER_HOST, vitest.config.ts): the SDK client spawns dist/mcpbox,
 * which runs server-everything and server-filesystem in Podman containers. The same assertions as on Docker
 * (test/gateway.test.ts, test/gateway-lifecycle.test.ts) where Podman supports them; each that differs says why.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { LABEL } from "../../src/policy/labels.ts";
import { ULIMITS } from "../../src/policy/run.ts";
import { isAlive } from "../../src/docker/cleanup.ts";
import { ensureTestImage, nodeBaseImage } from "../helpers/images.ts";
import { connect, containersOf, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { expectPodman, processSecurity, processTree } from "./_podman.ts";

let p: TestProject;
let gw: Connected;
/**
 * A JSON-RPC server that answers `first_line` with the first line its stdin ever carried. Podman hands the body of a
 * hijacked attach request to the container's stdin (ENVIRONMENT): a server must see the gateway's first message first.
 */
const FIRST_LINE_SERVER = [
  "let first;",
  'require("readline").createInterface({ input: process.stdin }).on("line", (line) => {',
  "  if (first === undefined) first = line;",
  "  let m;",
  "  try { m = JSON.parse(line); } catch { return; }",
  "  if (m.id === undefined || m.method === undefined) return;",
  '  const answer = (result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + String.fromCharCode(10));',
  '  if (m.method === "initialize") return answer({ protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "probe", version: "1" } });',
  '  if (m.method === "tools/list") return answer({ tools: [{ name: "first_line", inputSchema: { type: "object" } }] });',
  '  if (m.method === "tools/call") return answer({ content: [{ type: "text", text: first }] });',
  "  answer({});",
  "});",
].join(" "); // one line: a config value may not hold control characters
const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content ?? "");

beforeAll(async () => {
  await expectPodman();
  const everything = await ensureTestImage("mcpbox-test/everything:latest");
  const filesystem = await ensureTestImage("mcpbox-test/filesystem:latest");
  const node = await nodeBaseImage();
  p = project({
    ev: { image: everything },
    fs: { image: filesystem, args: ["/data"], mounts: [{ source: "./files", target: "/data" }] },
    probe: { image: node, command: ["node", "-e", FIRST_LINE_SERVER] },
  });
  fs.mkdirSync(path.join(p.dir, "files"));
  fs.writeFileSync(path.join(p.dir, "files/hello.txt"), "hello from the host\n");
  gw = await connect(p);
});

afterAll(async () => {
  await gw?.client.close();
});

describe("mcpbox serve on Podman", () => {
  it("lists both servers' tools and routes a call", async () => {
    const tools = (await gw.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["ev__echo", "ev__get-sum", "fs__read_text_file", "fs__write_file"]));
    expect(text(await gw.client.callTool({ name: "ev__echo", arguments: { message: "through podman" } }))).toContain("through podman");
    expect(text(await gw.client.callTool({ name: "ev__get-sum", arguments: { a: 2, b: 3 } }))).toContain("5");
  });

  it("gives a server the gateway's first message as the first line on its stdin, nothing of the attach request", async () => {
    const r = await gw.client.callTool({ name: "probe__first_line", arguments: {} });
    const first = JSON.parse((r.content as { text: string }[])[0]!.text) as { method?: string; jsonrpc?: string };
    // the era probe (SPEC 4.8): server/discover on a server's first start, initialize after this one answers -32601
    expect(first).toMatchObject({ jsonrpc: "2.0", method: "server/discover" });
  });

  it("reads a read-only mount and cannot write to it", async () => {
    const read = await gw.client.callTool({ name: "fs__read_text_file", arguments: { path: "/data/hello.txt" } });
    expect(text(read)).toContain("hello from the host");
    const write = await gw.client.callTool({ name: "fs__write_file", arguments: { path: "/data/new.txt", content: "x" } });
    expect(write.isError).toBe(true);
    expect(text(write)).toMatch(/read-only file system|EROFS/i);
    expect(fs.existsSync(path.join(p.dir, "files/new.txt"))).toBe(false);
  });

  it("runs each server in one container with the hardened policy", async () => {
    const list = await containersOf(gw.pid);
    expect(list.map((c) => c.Labels[LABEL.server]).sort()).toEqual(["ev", "fs", "probe"]);
    for (const c of list) {
      const info = await engine().getContainer(c.Id).inspect();
      const h = info.HostConfig;
      expect(info.Config.User).toBe("1000:1000");
      expect(h.ReadonlyRootfs).toBe(true);
      // Podman's inspect lists the capabilities it dropped by name (AUDIT_WRITE, CHOWN, ... its 14 defaults), not
      // the "ALL" asked for, so instead of `CapDrop == ["ALL"]`: nothing added, and no capability at all in the
      // processes themselves (bounding set included), read from /proc below.
      expect(h.CapAdd ?? []).toEqual([]);
      expect(h.CapDrop).toEqual(expect.arrayContaining(["CHOWN", "DAC_OVERRIDE", "NET_RAW", "SETUID", "SYS_CHROOT"]));
      // Podman's inspect says "no-new-privileges" where Docker says "no-new-privileges:true" (same create option);
      // the flag itself is read from /proc below (NoNewPrivs: 1)
      expect(h.SecurityOpt).toContain("no-new-privileges");
      expect(h.NetworkMode).toBe("none");
      expect(h.Memory).toBe(512 * 1024 * 1024);
      expect(h.MemorySwap).toBe(512 * 1024 * 1024);
      expect(h.PidsLimit).toBe(256);
      expect(h.Init).toBe(true);
      expect(h.Ulimits).toEqual(expect.arrayContaining(ULIMITS.map((u) => expect.objectContaining({ Name: `RLIMIT_${u.Name.toUpperCase()}`, Soft: u.Soft, Hard: u.Hard }))));
      expect(info.Config.Tty).toBe(false);
      expect(info.Config.Labels[LABEL.managed]).toBe("true");
      expect(info.Config.Labels[LABEL.ownerPid]).toBe(String(gw.pid));
      expect(info.Config.Labels[LABEL.session]).toMatch(/^[0-9a-f]{8}$/);
      expect(info.Config.Labels[LABEL.configHash]).toMatch(/^[0-9a-f]{12}$/);
      for (const m of info.Mounts.filter((x) => x.Type === "bind")) expect(m.RW).toBe(false);
      // what the processes really have: catatonit (Podman's --init) and the server under it
      const procs = processTree(info.State.Pid);
      expect(procs.length).toBeGreaterThanOrEqual(2);
      for (const pid of procs) {
        expect(processSecurity(pid)).toEqual({ CapEff: "0000000000000000", CapPrm: "0000000000000000", CapBnd: "0000000000000000", NoNewPrivs: "1" });
      }
    }
  });

  it("gives a server no network but loopback, a read-only root and its rlimits", async () => {
    const [ev] = (await containersOf(gw.pid)).filter((c) => c.Labels[LABEL.server] === "ev");
    const info = await engine().getContainer(ev!.Id).inspect();
    const server = processTree(info.State.Pid).at(-1)!;
    const devices = fs.readFileSync(`/proc/${server}/net/dev`, "utf8").split("\n").slice(2).map((l) => l.split(":")[0]!.trim()).filter(Boolean);
    expect(devices).toEqual(["lo"]);
    const limits = fs.readFileSync(`/proc/${server}/limits`, "utf8");
    expect(limits).toMatch(/^Max open files\s+8192\s+8192/m);
    expect(limits).toMatch(/^Max processes\s+8192\s+8192/m);
    const root = fs.readFileSync(`/proc/${server}/mounts`, "utf8").split("\n").find((l) => l.split(" ")[1] === "/");
    expect(root?.split(" ")[3]?.split(",")).toContain("ro");
  });
});

describe("the gateway's end on Podman", () => {
  it("removes every container when the client closes", async () => {
    const c = await connect(p);
    await c.client.listTools();
    // tools/list may come from the catalog of an earlier run, before the servers are up (issue 15)
    await waitFor("the three servers running", async () => ((await containersOf(c.pid)).filter((x) => x.State === "running").length === 3 ? true : undefined), 60_000);
    // end stdin ourselves: the SDK's close() would SIGTERM, then SIGKILL a gateway that takes over 2 s to clean up
    (c.transport as unknown as { _process: { stdin: NodeJS.WritableStream } })._process.stdin.end();
    await waitFor("the gateway to exit", () => (isAlive(c.pid) ? undefined : true), 60_000);
    expect(await containersOf(c.pid)).toEqual([]);
  });

  it("leaves no container of a SIGKILLed gateway after 10 s (the reaper)", async () => {
    const c = await connect(p);
    await c.client.listTools();
    await waitFor("the three servers running", async () => ((await containersOf(c.pid)).filter((x) => x.State === "running").length === 3 ? true : undefined), 60_000);
    process.kill(c.pid, "SIGKILL");
    // SPEC 4.2: nothing outlives the gateway by more than 10 s
    await waitFor("the containers gone", async () => ((await containersOf(c.pid)).length === 0 ? true : undefined), 10_000);
    await c.client.close().catch(() => {});
  });
});
