/**
 * Boundaries 5 and 15 on the host's disk (hrev): an allowlisted server's egress proxy writes one record per
 * connection or plain request, allowed or denied, on its stdout, and the gateway read them with the engine's `logs`,
 * so the proxy ran with the engine's default log driver (json-file, no size limit): a server pipelining denied
 * requests on one connection (thousands per call, as fast as the proxy answers) grew a log file under
 * /var/lib/docker without bound for the whole session. The hostile fixture: the egress test server pipelines 2000
 * requests for a host its list does not name; each must still be an audit line (the records come on the proxy's
 * attach stream), and the engine must keep no log of the proxy or the forwarder. The same requests made every one an
 * audit line too (about 250 bytes each, 10 000 a second here: MB/s into `$MCPBOX_HOME/audit`, unbounded): past 200
 * lines a second (a burst of 2000) each second's surplus is one line with its count, and every request is counted.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { auditLines, connect, containersOf, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { egressWebServer, engineLog } from "./_hostile.ts";

const REQUESTS = 2000;
let p: TestProject;
let c: Connected;

beforeAll(async () => {
  p = project({ web: await egressWebServer({ network: { allow: ["good.test"] } }) });
  c = await connect(p);
}, 180_000);

afterAll(async () => {
  await c?.client.close().catch(() => {});
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

/** Denied egress requests the audit log accounts for: a line each, or a count in a line summing a second's surplus. */
function accounted(): number {
  const lines = auditLines(p).filter((l) => l.method === "egress" && l.outcome === "denied");
  return lines.reduce((n, l) => n + (l.host === "denied.test" ? 1 : typeof l.count === "number" ? l.count : 0), 0);
}

describe("an allowlisted server's denied requests are audited, never logged by the engine on the host's disk", () => {
  it("audits 2000 pipelined denied requests and leaves no engine log of the proxy or the forwarder", async () => {
    const payload = "GET http://denied.test/DENIED-7c1 HTTP/1.1\r\nHost: denied.test\r\n\r\n".repeat(REQUESTS);
    const r = (await c.client.callTool({ name: "web__tcp", arguments: { host: "127.0.0.1", port: 3128, payload } }, undefined, { timeout: 60_000 })) as {
      content: Array<{ text: string }>;
    };
    expect(r.content[0]!.text).toContain("403 Forbidden");
    await waitFor("the denied requests audited", () => (accounted() >= REQUESTS ? true : undefined), 30_000);
    const egress = (await containersOf(c.pid)).filter((x) => x.Labels["mcpbox.egress"]);
    expect(egress.map((x) => x.Labels["mcpbox.egress"]).sort()).toEqual(["forward", "proxy"]);
    for (const x of egress) {
      const info = await engine().getContainer(x.Id).inspect();
      const log = await engineLog(x.Id);
      const role = x.Labels["mcpbox.egress"];
      expect(log.toString("latin1").includes("denied.test"), `the engine kept ${log.length} bytes of the ${role}'s output (driver ${info.HostConfig.LogConfig?.Type})`).toBe(false);
      expect(info.HostConfig.LogConfig?.Type, role).toBe("none");
    }
  });

  it("writes at most about 200 egress lines a second past a burst, summing the rest up with their count", async () => {
    const before = accounted();
    const lines = () => auditLines(p).filter((l) => l.method === "egress").length;
    const linesBefore = lines();
    const payload = "GET http://denied.test/DENIED-7c1 HTTP/1.1\r\nHost: denied.test\r\n\r\n".repeat(10 * REQUESTS);
    const started = Date.now();
    await c.client.callTool({ name: "web__tcp", arguments: { host: "127.0.0.1", port: 3128, payload } }, undefined, { timeout: 120_000 });
    await waitFor("every denied request accounted for", () => (accounted() - before >= 10 * REQUESTS ? true : undefined), 30_000);
    const seconds = (Date.now() - started) / 1000;
    expect(accounted() - before).toBe(10 * REQUESTS);
    // the first case took the burst; from then on 200 a second, plus a summary line per second
    expect(lines() - linesBefore).toBeLessThan(400 * (seconds + 2));
  });
});
