/**
 * Boundary 15 for IP literals (hrev): the proxy refuses addresses with an IPv4 address inside when that one is
 * private (IPv4-mapped, IPv4-compatible, NAT64, 6to4), but not the IPv4-translated form `::ffff:0:a.b.c.d` (SIIT,
 * RFC 2765), which a translator on the proxy's network turns into the IPv4 address: with `*` (any public host) a
 * server asked for `[::ffff:0:10.0.0.1]:443` and the proxy allowed it, then tried to connect. The hostile request:
 * a CONNECT to that form of a private address through the server's proxy port; it must be refused (403), its audit
 * line saying why.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLines, connect, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { egressWebServer } from "./_hostile.ts";

let p: TestProject;
let c: Connected;

beforeAll(async () => {
  p = project({ web: await egressWebServer({ network: { allow: ["*"] }, dangerous: { allowAnyEgress: true } }) });
  c = await connect(p);
}, 180_000);

afterAll(async () => {
  await c?.client.close().catch(() => {});
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("an IPv4-translated address of a private one", () => {
  it("is refused by the proxy even with * on the list", async () => {
    for (const target of ["[::ffff:0:a00:1]:443", "[::ffff:0:10.0.0.1]:443"]) {
      const payload = `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`;
      const r = (await c.client.callTool({ name: "web__tcp", arguments: { host: "127.0.0.1", port: 3128, payload } })) as { content: Array<{ text: string }> };
      expect(r.content[0]!.text.split("\r\n")[0], target).toBe("HTTP/1.1 403 Forbidden");
    }
    const line = await waitFor("the audit line", () => auditLines(p).find((l) => l.method === "egress" && String(l.reason).includes("IPv4-translated")), 20_000);
    expect(line.outcome).toBe("denied");
  });
});
