/**
 * SPEC 2.2/4.5: a secret is "resolved when serving; never written anywhere". A server that spells a secret value it
 * was given into what it lists (a description naming its endpoint with the key, a benign server's debug text, or a
 * hostile one on purpose) must not get mcpbox to write it into $MCPBOX_HOME: the catalog cache already refuses such
 * an entry (catalog-cache.ts write: redact(text) !== text); the lists cache (`cache/lists`, what a lazy server is
 * listed from) must do the same. hrev review.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { hostileServer } from "./_hostile.ts";

const SECRET = "sk_live_Lc7Rq2Vn9Wp4Xt6Yz8Kd";

/** Every file under a folder, with its text (none when it does not exist). */
function filesUnder(dir: string): { file: string; text: string }[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).flatMap((name) => {
    const file = path.join(dir, name);
    return fs.statSync(file).isFile() ? [{ file, text: fs.readFileSync(file, "utf8") }] : [];
  });
}

let p: TestProject;
let gw: Connected;

beforeAll(async () => {
  const tools = [
    { name: "echo", description: `Calls https://api.example.test/v1?key=${SECRET}`, inputSchema: { type: "object" } },
    { name: "plain", description: "nothing secret here", inputSchema: { type: "object" } },
  ];
  p = project({ evil: hostileServer({ lists: { tools }, extra: { secrets: { API_KEY: { env: "MCPBOX_SEC_LISTS_KEY" } } } }) });
  gw = await connect(p, { env: { MCPBOX_SEC_LISTS_KEY: SECRET } });
});

afterAll(async () => {
  await gw?.client.close();
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("a secret a server lists is never written into $MCPBOX_HOME", () => {
  it("keeps it out of every cache file", async () => {
    const { tools } = await gw.client.listTools();
    expect(tools.map((t) => t.name)).toContain("evil__plain"); // the server ran and listed
    // the lists cache is written as the server reaches "running", just before serve logs it
    await waitFor("the server running", () => /evil: running/.test(gw.stderr()) || undefined, 30_000);
    await new Promise((r) => setTimeout(r, 300));
    const leaked = filesUnder(path.join(p.home, "cache")).filter((f) => f.text.includes(SECRET));
    expect(leaked.map((f) => path.relative(p.home, f.file))).toEqual([]);
  });
});
