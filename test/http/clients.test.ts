/**
 * `mcpbox serve --http` with clients of both revisions at once (SPEC 4.8, 4.9), end to end on dist/mcpbox: what the
 * servers change reaches every client (a 2025-11-25 client as list_changed, a 2026-07-28 client on its
 * subscriptions/listen stream), and one client's flood of unanswered server questions never costs another client
 * its own.
 */
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeBaseImage } from "../helpers/images.ts";
import { waitFor, type TestProject } from "../helpers/gateway.ts";
import { fixtureProject, httpClient, killServes, serveHttp, tokenOf, type Served } from "./_serve.ts";

let p: TestProject;
let s: Served;
let token: string;

beforeAll(async () => {
  p = fixtureProject(await nodeBaseImage(), { approve: ["whoami"] });
  s = await serveHttp(p);
  token = tokenOf(p);
});
afterAll(killServes);

const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;

/** A 2026-07-28 client (SDK v2, per request, no session) of the gateway. */
async function modernClient(name: string, capabilities: Record<string, unknown> = {}) {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const transport = new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name, version: "1" }, { versionNegotiation: { mode: "auto" }, capabilities });
  await client.connect(transport);
  expect(client.getProtocolEra()).toBe("modern");
  return client;
}

const ENVELOPE = (name: string) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name, version: "1" },
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
});
let id = 0;

/** One raw 2026-07-28 request as client `name`, its answer (plain JSON or the last event of an SSE stream). */
async function post(name: string, method: string, params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const tool = typeof params.name === "string" ? { "Mcp-Name": params.name } : {};
  const response = await fetch(s.url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "Mcp-Method": method,
      ...tool,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: { ...params, _meta: ENVELOPE(name) } }),
  });
  const body = await response.text();
  const line = body.split("\n").reverse().find((l) => l.startsWith("data:"));
  return JSON.parse(line ? line.slice(5) : body);
}

describe("serve --http, clients of both revisions", () => {
  it("a server's changed list reaches a 2026-07-28 client on its listen stream and a 2025-11-25 client as list_changed; a resource update the listen names too", async () => {
    const modern = await modernClient("listener");
    const heard: { method: string; meta?: Record<string, unknown> }[] = [];
    const record = (n: { method: string; params?: { _meta?: Record<string, unknown> } }) => void heard.push({ method: n.method, meta: n.params?._meta });
    modern.setNotificationHandler("notifications/tools/list_changed", record);
    modern.setNotificationHandler("notifications/resources/updated", record);
    const note = (await modern.listResources()).resources.find((r) => r.name.includes("note"))!;
    expect(note, JSON.stringify(await modern.listResources())).toBeDefined();
    const sub = await modern.listen({ toolsListChanged: true, resourceSubscriptions: [note.uri] });
    expect(sub.honoredFilter).toMatchObject({ toolsListChanged: true, resourceSubscriptions: [note.uri] });

    let legacyHeard = 0;
    const legacy = await httpClient(s.url, token, { name: "legacy", setup: (c) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => void legacyHeard++) });
    const before = (await modern.listTools()).tools.length;
    expect(textOf(await legacy.client.callTool({ name: "fix__grow", arguments: {} }))).toMatch(/tools$/);

    await waitFor("the 2026-07-28 client to hear tools/list_changed on its listen stream", () => heard.some((h) => h.method === "notifications/tools/list_changed") || undefined, 10_000);
    const change = heard.find((h) => h.method === "notifications/tools/list_changed")!;
    expect(change.meta).toHaveProperty(["io.modelcontextprotocol/subscriptionId"]);
    await waitFor("the 2025-11-25 client to hear list_changed", () => legacyHeard > 0 || undefined, 10_000);
    expect((await modern.listTools(undefined, { cacheMode: "bypass" })).tools.length).toBe(before + 1);
    expect((await legacy.client.listTools()).tools.some((t) => t.name.startsWith("fix__grown"))).toBe(true);

    // the listen's resources are subscribed at their server while it is open (the server sends updates only then)
    const subscribedAtServer = async () => JSON.parse(textOf(await legacy.client.callTool({ name: "fix__subscribed", arguments: {} }))) as string[];
    expect(await subscribedAtServer()).toEqual(["fix://note"]);
    await legacy.client.callTool({ name: "fix__touch", arguments: {} });
    await waitFor("the listen stream to carry resources/updated", () => heard.some((h) => h.method === "notifications/resources/updated") || undefined, 10_000);

    await sub.close();
    expect(await sub.closed).toBe("local");
    await waitFor("the server to be told to unsubscribe once the listen closed", async () => (await subscribedAtServer()).length === 0 || undefined, 10_000);
    await legacy.transport.terminateSession().catch(() => {});
    await legacy.client.close();
    await modern.close();
  });

  it("a 2026-07-28 client that floods unanswered questions and approvals costs only itself: another client's question and parked round trip survive", async () => {
    // the flooder fills what a server may have waiting on one client: its server's questions, never answered (one
    // after the other: a 2025-11-25 server's question names no call, so calls waiting at once would share them)
    const asks = [];
    for (let i = 0; i < 20; i++) asks.push(await post("flooder", "tools/call", { name: "fix__ask", arguments: { question: `flood ${i}` } }));
    expect(asks.filter((a) => a.result?.resultType === "input_required").length).toBe(16);
    expect(JSON.stringify(asks[19])).toContain("requests pending at the client");

    // another client's call whose server asks it something still gets the question
    const first = await post("victim", "tools/call", { name: "fix__ask", arguments: { question: "for the victim" } });
    expect(first.result?.resultType, JSON.stringify(first)).toBe("input_required");
    expect(JSON.stringify(first.result!.inputRequests)).toContain("for the victim");

    // then the flooder parks far more approvals than the gateway keeps for everyone together
    for (let round = 0; round < 6; round++) {
      const approvals = await Promise.all(Array.from({ length: 50 }, () => post("flooder", "tools/call", { name: "fix__whoami", arguments: {} })));
      expect(approvals.every((a) => a.result?.resultType === "input_required"), JSON.stringify(approvals[0])).toBe(true);
    }

    // the victim's round trip was not the one to give way
    const [key] = Object.keys(first.result!.inputRequests as object);
    const retry = await post("victim", "tools/call", {
      name: "fix__ask",
      arguments: { question: "for the victim" },
      requestState: first.result!.requestState,
      inputResponses: { [key!]: { action: "accept", content: { answer: "victim answered" } } },
    });
    expect(JSON.stringify(retry)).toContain("victim answered");
  });
});
