import { describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { listAll } from "./lists.ts";

/** A client whose tools come in pages of two. */
function pagedClient(total: number): Client {
  const tools = Array.from({ length: total }, (_, i) => ({ name: `t${i}`, inputSchema: { type: "object" as const } }));
  return {
    async listTools(params: { cursor?: string }) {
      const start = Number(params.cursor ?? 0);
      const next = start + 2;
      return { tools: tools.slice(start, next), ...(next < total ? { nextCursor: String(next) } : {}) };
    },
  } as unknown as Client;
}

describe("listAll", () => {
  it("gathers every page and skips what the server does not offer", async () => {
    const lists = await listAll(pagedClient(5), { tools: {} }, 1000);
    expect(lists.tools.map((t) => t.name)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect(lists.prompts).toEqual([]);
    expect(lists.resources).toEqual([]);
  });
});
