/**
 * Boundary 22: a secret goes to its container and nowhere else on the way (SPEC 4.5). Two leaks of the same class, an
 * engine library writing out what mcpbox hands it:
 * - dockerode's createContainer copied every create option into the request's URL, so the container's Env, its
 *   secrets, stood in the request line (`POST /containers/create?...&Env=API_KEY%3D<value>`) that engines log at debug
 *   level and proxies log;
 * - with DEBUG=* (or DEBUG=modem) in serve's environment, docker-modem's `debug` printed every engine request and
 *   answer on stderr, the client's log file: the create's Env, each inspect's Config.Env.
 * The real binary serves a server with a secret while the test stands between it and the engine (a unix socket that
 * records what mcpbox sends and passes it on, the test's own) and DEBUG=* is set: the secret must reach the
 * container, in a create's body, and appear in no request line and nowhere on serve's stderr.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { connect, containersOf, project, type Connected, type TestProject } from "../helpers/gateway.ts";
import { hostileServer, textOf } from "./_hostile.ts";

const SECRET = "sk_engine_Qv7pLk2TmE8rWb";
/** what a client sends the engine before the upgrade of an attach (after it, the bytes are the server's stdin) */
const MAX_RECORDED = 4 * 1024 * 1024;

let p: TestProject;
let gw: Connected;
let dir: string;
let proxy: net.Server;
const sent: Buffer[] = [];
let recorded = 0;

beforeAll(async () => {
  const target = (engine().modem as { socketPath?: string }).socketPath;
  if (!target) throw new Error("this test needs the engine on a unix socket (DOCKER_HOST unix://... or the default)");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-sec-engine-"));
  const socket = path.join(dir, "engine.sock");
  proxy = net.createServer((client) => {
    const up = net.connect(target);
    client.on("data", (d: Buffer) => {
      if (recorded < MAX_RECORDED) (sent.push(d), (recorded += d.length));
    });
    client.pipe(up).pipe(client);
    const end = () => (client.destroy(), up.destroy());
    client.on("error", end).on("close", end);
    up.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => proxy.listen(socket, resolve));
  p = project({ evil: hostileServer({ extra: { secrets: { API_KEY: { env: "MCPBOX_SEC_ENGINE_KEY" } } } }) });
  gw = await connect(p, { env: { MCPBOX_SEC_ENGINE_KEY: SECRET, DOCKER_HOST: `unix://${socket}`, DEBUG: "*" } });
});

afterAll(async () => {
  await gw?.client.close().catch(() => {});
  await new Promise((resolve) => proxy?.close(resolve));
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a server's secret on its way to the container", () => {
  it("reaches the container, in a create's body, through the test's socket", async () => {
    const r = await gw.client.callTool({ name: "evil__echo", arguments: { hello: "there" } });
    expect(textOf(r)).toContain("hostile: ");
    const [c] = await containersOf(gw.pid);
    const env = (await engine().getContainer(c!.Id).inspect()).Config.Env ?? [];
    expect(env).toContain(`API_KEY=${SECRET}`);
    expect(Buffer.concat(sent).includes(JSON.stringify(`API_KEY=${SECRET}`))).toBe(true);
  });

  it("stands in no request line (the URL engines and proxies log)", () => {
    const text = Buffer.concat(sent).toString("latin1");
    const lines = [...text.matchAll(/(?:GET|POST|PUT|DELETE|HEAD) (\S+) HTTP\/1\.[01]\r\n/g)].map((m) => m[1]!);
    expect(lines.some((l) => l.includes("/containers/create"))).toBe(true); // the creates went through the test's socket
    const forms = [SECRET, encodeURIComponent(SECRET), encodeURIComponent(`API_KEY=${SECRET}`)];
    expect(lines.filter((l) => forms.some((f) => l.includes(f) || decodeURIComponent(l).includes(f)))).toEqual([]);
  });

  it("is not on serve's stderr with DEBUG=* set (no library's debug output)", () => {
    const err = gw.stderr();
    expect(err).toContain("serving"); // serve wrote its own lines
    expect(err).not.toContain(SECRET);
    expect(err).not.toMatch(/\bmodem (Sending|Received)\b/);
  });
});
