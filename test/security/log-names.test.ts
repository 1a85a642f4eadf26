/**
 * Boundary 13 and SPEC 4.5: a secret never reaches serve's stderr, in the lines the gateway writes about what a server
 * lists either. Those lines quote names the server chose (a name clash, a refused list or template) and were logged
 * as they were; a server holds the secret it was given. The hostile server lists two tools of the same name, named
 * with its API key: the clash is told on stderr, and the key must not be in it.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { hostileServer } from "./_hostile.ts";

const SECRET = "sk_live_Lg7Kd2Pq9Xw4Nc6Vb8Tz";

let p: TestProject;
let gw: Connected;

beforeAll(async () => {
  const tool = { name: `dup_${SECRET}`, description: "listed twice", inputSchema: { type: "object" } };
  p = project({ evil: hostileServer({ lists: { tools: [tool, tool] }, extra: { secrets: { API_KEY: { env: "MCPBOX_SEC_LOG_KEY" } } } }) });
  gw = await connect(p, { env: { MCPBOX_SEC_LOG_KEY: SECRET } });
});

afterAll(async () => {
  await gw?.client.close();
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("a secret in a name the gateway logs", () => {
  it("is redacted in serve's name-clash line", async () => {
    const { tools } = await gw.client.listTools();
    expect(tools.filter((t) => t.name.startsWith("evil__dup_"))).toHaveLength(2); // told apart by a hash
    await waitFor("the clash on stderr", () => (/name clash/.test(gw.stderr()) ? true : undefined), 30_000);
    expect(gw.stderr()).toMatch(/name clash: .*\[redacted\]/);
    expect(gw.stderr().includes(SECRET), gw.stderr()).toBe(false);
  });
});
