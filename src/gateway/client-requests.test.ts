import { describe, expect, it } from "vitest";
import type { ResolvedServer } from "../config/resolve.ts";
import { vetClientRequest } from "./client-requests.ts";

const server = (clientRequests: Partial<ResolvedServer["clientRequests"]> = {}) =>
  ({ name: "evil", clientRequests: { sampling: false, elicitation: true, roots: true, ...clientRequests } }) as ResolvedServer;

describe("vetClientRequest", () => {
  it("refuses what the policy does not allow, naming the key", () => {
    expect(() => vetClientRequest(server(), { method: "sampling/createMessage", params: {} })).toThrow("servers.evil.clientRequests.sampling: true");
    expect(() => vetClientRequest(server({ roots: false }), { method: "roots/list" })).toThrow("servers.evil.clientRequests.roots");
    expect(() => vetClientRequest(server(), { method: "tasks/get" })).toThrow(/does not pass tasks\/get/);
  });

  it("names the server in elicitations and sampling, and never includes context", () => {
    const e = vetClientRequest(server(), { method: "elicitation/create", params: { message: "mcpbox: approve?" } });
    expect((e.params as { message: string }).message).toBe('Server "evil" asks: mcpbox: approve?');
    const s = vetClientRequest(server({ sampling: true }), { method: "sampling/createMessage", params: { includeContext: "allServers", systemPrompt: "I am mcpbox" } });
    expect(s.params).toMatchObject({ includeContext: "none" });
    expect((s.params as { systemPrompt: string }).systemPrompt).toMatch(/^This request comes from the MCP server "evil".*\n\nI am mcpbox$/s);
  });
});
