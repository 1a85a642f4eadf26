import { describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { listAll } from "./lists.ts";

/** A client whose tools come in pages of two. */
function pagedClient(total: number, size = 2): Client {
  const tools = Array.from({ length: total }, (_, i) => ({ name: `t${i}`, inputSchema: { type: "object" as const } }));
  return {
    async request(request: { method: string; params: { cursor?: string } }) {
      if (request.method !== "tools/list") throw new Error(`unexpected ${request.method}`);
      const start = Number(request.params.cursor ?? 0);
      const next = start + size;
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

  it("fails a server that lists more than the cap, naming it", async () => {
    await expect(listAll(pagedClient(5002, 1000), { tools: {} }, 1000, "big")).rejects.toThrow(/server big lists more than 5000 tools/);
    await expect(listAll(pagedClient(300, 2), { tools: {} }, 1000, "big")).rejects.toThrow(/over more than 100 pages/);
  });
});
