/**
 * Boundary 18, before the token (hrev): `serve --http` parsed a request's target before its guard, so a request
 * without a token whose target Node's parser lets through but URL does not (`GET http://[`) got a 500 instead of the
 * 401 every unauthenticated request gets, and a line on serve's stderr each: any local process could write to it as
 * fast as it sent requests (256 connections, keep-alive). The hostile client: such requests without a token, then
 * with one.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeBaseImage } from "../helpers/images.ts";
import type { TestProject } from "../helpers/gateway.ts";
import { fixtureProject, killServes, serveHttp, tokenOf, type Served } from "../http/_serve.ts";

let p: TestProject;
let s: Served;

beforeAll(async () => {
  p = fixtureProject(await nodeBaseImage());
  s = await serveHttp(p);
}, 120_000);

afterAll(async () => {
  s?.child.kill("SIGTERM");
  await s?.exited;
  killServes();
});

/** The status line of the answer to one request written as given. */
function statusOf(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, "127.0.0.1", () => c.end(head));
    let data = "";
    c.on("data", (d: Buffer) => (data += d.toString("latin1")));
    c.on("error", reject);
    c.on("close", () => resolve(data.split("\r\n")[0]!));
  });
}

describe("serve --http answers a request with a bad target", () => {
  it("401 without the token, with nothing written to serve's stderr; 400 with it", async () => {
    const before = s.stderr().length;
    const head = (auth: string) => `GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n${auth}Connection: close\r\n\r\n`;
    for (let i = 0; i < 20; i++) expect(await statusOf(s.port, head(""))).toBe("HTTP/1.1 401 Unauthorized");
    expect(await statusOf(s.port, `GET //[ HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nConnection: close\r\n\r\n`)).toBe("HTTP/1.1 401 Unauthorized");
    await new Promise((r) => setTimeout(r, 200));
    expect(s.stderr().slice(before)).not.toMatch(/^mcpbox: http: |Invalid URL/m); // (its server may say it runs meanwhile)
    expect(await statusOf(s.port, head(`Authorization: Bearer ${tokenOf(p)}\r\n`))).toBe("HTTP/1.1 400 Bad Request");
  });
});
