/**
 * `mcpbox serve --http` end to end (SPEC 4.9): the SDK's Streamable HTTP client against dist/mcpbox, several
 * clients at once on one gateway. They share the server's one container; each sees only its own progress and
 * elicitations; a client that goes away (DELETE, or its connection dropped mid-call) cancels its calls upstream.
 */
import http from "node:http";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeBaseImage } from "../helpers/images.ts";
import { containersOf, waitFor, type TestProject } from "../helpers/gateway.ts";
import { fixtureProject, httpClient, killServes, postHeaders, serveHttp, tokenOf, type HttpClient, type Served } from "./_serve.ts";

let p: TestProject;
let s: Served;
let token: string;

beforeAll(async () => {
  p = fixtureProject(await nodeBaseImage());
  s = await serveHttp(p);
  token = tokenOf(p);
});
afterAll(killServes);

const textOf = (r: unknown) => ((r as { content: { text: string }[] }).content[0]!.text);

/** A client that answers elicitations with its own name, and records what it was asked. */
async function named(name: string): Promise<HttpClient & { asked: string[] }> {
  const asked: string[] = [];
  const c = await httpClient(s.url, token, {
    name,
    capabilities: { elicitation: {} },
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, async (r) => {
        asked.push(r.params.message);
        return { action: "accept", content: { answer: `${name} answered` } };
      }),
  });
  return { ...c, asked };
}

async function bye(c: HttpClient): Promise<void> {
  await c.transport.terminateSession().catch(() => {});
  await c.client.close();
}

describe("serve --http", () => {
  it("lists and calls tools over Streamable HTTP with a session id", async () => {
    const c = await httpClient(s.url, token);
    expect(c.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const tools = (await c.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["fix__echo", "fix__slow", "fix__ask", "fix__whoami"]));
    expect(textOf(await c.client.callTool({ name: "fix__echo", arguments: { text: "over http" } }))).toBe("over http");
    await bye(c);
  });

  it("two clients at once share the one container; each sees only its own progress and elicitations", async () => {
    const [a, b] = await Promise.all([named("A"), named("B")]);
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    const [idA, idB] = await Promise.all([a, b].map(async (c) => textOf(await c.client.callTool({ name: "fix__whoami", arguments: {} }))));
    expect(idA).toBe(idB);
    expect(await containersOf(s.pid)).toHaveLength(1);

    const seen: Record<string, string[]> = { A: [], B: [] };
    const slow = (c: HttpClient, tag: string) =>
      c.client.callTool({ name: "fix__slow", arguments: { ms: 1000, tag } }, undefined, { onprogress: (pr) => seen[tag]!.push(pr.message ?? "") });
    const [ra, rb] = await Promise.all([slow(a, "A"), slow(b, "B")]);
    expect(textOf(ra)).toMatch(/^A done/);
    expect(textOf(rb)).toMatch(/^B done/);
    expect(seen.A!.length).toBeGreaterThan(3);
    expect(seen.B!.length).toBeGreaterThan(3);
    expect(seen.A!.every((m) => m.startsWith("A "))).toBe(true);
    expect(seen.B!.every((m) => m.startsWith("B "))).toBe(true);

    // one after the other: a server's request names no call (2025-11-25 over stdio), so it goes to the client with a
    // call in flight to that server; with both waiting on it at once the gateway cannot tell them apart
    const askA = await a.client.callTool({ name: "fix__ask", arguments: { question: "for A" } });
    const askB = await b.client.callTool({ name: "fix__ask", arguments: { question: "for B" } });
    expect(textOf(askA)).toContain("A answered");
    expect(textOf(askB)).toContain("B answered");
    expect(a.asked).toHaveLength(1);
    expect(a.asked[0]).toContain("for A");
    expect(b.asked).toHaveLength(1);
    expect(b.asked[0]).toContain("for B");
    await Promise.all([bye(a), bye(b)]);
    expect(await containersOf(s.pid)).toHaveLength(1); // the servers outlive the clients
  });

  it("a client that DELETEs its session cancels its call upstream; the other client goes on", async () => {
    const [a, b] = await Promise.all([named("A"), named("B")]);
    let progressed!: () => void;
    const first = new Promise<void>((r) => (progressed = r));
    const call = a.client.callTool({ name: "fix__slow", arguments: { ms: 30_000, tag: "deleted" } }, undefined, { onprogress: () => progressed() });
    call.catch(() => {});
    await first;
    await a.transport.terminateSession();
    await waitFor("the server to see the cancel", async () => {
      const tags = JSON.parse(textOf(await b.client.callTool({ name: "fix__cancelled", arguments: {} }))) as string[];
      return tags.includes("deleted") || undefined;
    }, 10_000);
    expect(textOf(await b.client.callTool({ name: "fix__echo", arguments: { text: "still here" } }))).toBe("still here");
    await a.client.close();
    await bye(b);
  });

  it("a client whose connection drops mid-call cancels that call upstream", async () => {
    const a = await named("A");
    const sid = a.transport.sessionId!;
    // the call on a connection of its own, dropped after the first progress event
    await new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 77, method: "tools/call", params: { name: "fix__slow", arguments: { ms: 30_000, tag: "dropped" }, _meta: { progressToken: "p1" } } });
      const req = http.request(
        { host: "127.0.0.1", port: s.port, path: "/mcp", method: "POST", headers: postHeaders(s.port, { authorization: `Bearer ${token}`, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" }) },
        (res) => {
          res.on("data", (d: Buffer) => {
            if (d.toString().includes("notifications/progress")) {
              req.destroy();
              resolve();
            }
          });
        },
      );
      req.on("error", () => {});
      req.on("close", () => resolve());
      setTimeout(() => reject(new Error("no progress within 10 s")), 10_000).unref();
      req.end(body);
    });
    await waitFor("the server to see the cancel", async () => {
      const tags = JSON.parse(textOf(await a.client.callTool({ name: "fix__cancelled", arguments: {} }))) as string[];
      return tags.includes("dropped") || undefined;
    }, 10_000);
    await bye(a);
  });

  it("a 2026-07-28 client is served per request, without a session, and refused without the token", async () => {
    const { Client: ModernClient, StreamableHTTPClientTransport: ModernTransport } = await import("@modelcontextprotocol/client");
    const open = async (bearer: string) => {
      const transport = new ModernTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } });
      const client = new ModernClient({ name: "modern", version: "1" }, { versionNegotiation: { mode: "auto" } });
      await client.connect(transport);
      return { client, transport };
    };
    const m = await open(token);
    expect(m.client.getProtocolEra()).toBe("modern");
    expect(m.transport.sessionId).toBeUndefined();
    expect((await m.client.listTools()).tools.map((t) => t.name)).toContain("fix__echo");
    expect(textOf(await m.client.callTool({ name: "fix__echo", arguments: { text: "modern" } }))).toBe("modern");
    await m.client.close();
    await expect(open("wrong")).rejects.toThrow();
  });

  it("a closed stdin does not stop it; SIGTERM does within 5 s, with the containers removed", async () => {
    const c = await httpClient(s.url, token);
    expect(textOf(await c.client.callTool({ name: "fix__echo", arguments: { text: "x" } }))).toBe("x");
    const t0 = Date.now();
    s.child.kill("SIGTERM");
    const end = await s.exited;
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(end).toMatchObject({ code: 0 });
    expect(await containersOf(s.pid)).toEqual([]);
    await c.client.close().catch(() => {});
  });
});
