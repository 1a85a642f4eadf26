/**
 * Boundaries 13 and SPEC 4.5 (hrev): a secret is never written to the audit log, stderr or monitor output, in the
 * names of what is called either. The gateway redacted a call's arguments and reason but wrote the tool's name (a
 * prompt's, a resource's URI) as it was, into the audit line, the monitor's call and guard events (`mcpbox monitor`
 * prints the guard decisions) and serve's "refused" line; names are the server's choice, and a server holds the
 * secret it was given. The hostile server lists a tool and a resource named with its API key, and a tool the policy
 * hides (deny: hidden_*) named with it too; the client calls and reads them. `mcpbox tools` printed the names and
 * descriptions, and `tools --call` the answer, on the terminal as they were: they must hide the key as well.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLines, connect, mcpboxCommand, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { hostileServer, textOf } from "./_hostile.ts";

const SECRET = "sk_live_Hn4Qp8Ws2Vx6Zb3Mk7Rt";

let p: TestProject;
let gw: Connected;

beforeAll(async () => {
  const lists = {
    tools: [
      { name: "echo", description: "echo", inputSchema: { type: "object" } },
      { name: `use_${SECRET}`, description: "a tool named with the key", inputSchema: { type: "object" } },
      { name: `hidden_${SECRET}`, description: "hidden by the policy", inputSchema: { type: "object" } },
    ],
    resources: [{ uri: `mem://keys/${SECRET}`, name: "key" }],
  };
  p = project({
    evil: hostileServer({ lists, extra: { secrets: { API_KEY: { env: "MCPBOX_SEC_NAMES_KEY" } }, tools: { deny: ["hidden_*"] } } }),
  });
  gw = await connect(p, { env: { MCPBOX_SEC_NAMES_KEY: SECRET } });
});

afterAll(async () => {
  await gw?.client.close();
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("a secret in the name of what is called", () => {
  it("reaches no audit line, no stderr line and no monitor output", async () => {
    const { tools } = await gw.client.listTools();
    expect(tools.map((t) => t.name)).toContain(`evil__use_${SECRET}`);
    expect(textOf(await gw.client.callTool({ name: `evil__use_${SECRET}`, arguments: {} }))).toContain("hostile: ");
    const read = await gw.client.readResource({ uri: `mem://keys/${SECRET}` });
    expect(JSON.stringify(read)).toContain("read by hostile");
    const refused = await gw.client.callTool({ name: `evil__hidden_${SECRET}`, arguments: {} });
    expect(refused.isError).toBe(true);

    await waitFor("three audit lines", () => (auditLines(p).length >= 3 ? true : undefined), 30_000);
    const audit = fs.readdirSync(path.join(p.home, "audit")).map((f) => fs.readFileSync(path.join(p.home, "audit", f), "utf8")).join("\n");
    expect(audit).toContain("[redacted]");
    expect(audit.includes(SECRET), audit).toBe(false);
    expect(auditLines(p).map((l) => l.outcome).sort()).toEqual(["denied", "ok", "ok"]); // the lines are of these calls

    await waitFor("the refusal on stderr", () => (/refused/.test(gw.stderr()) ? true : undefined), 30_000);
    expect(gw.stderr().includes(SECRET), gw.stderr()).toBe(false);

    const { command, args } = mcpboxCommand();
    const monitor = execFileSync(command, [...args, "monitor"], { env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" }, encoding: "utf8" });
    expect(monitor).toContain("recent guard decisions");
    expect(monitor.includes(SECRET), monitor).toBe(false);
  });

  it("is hidden from what `mcpbox tools` prints: the list, its JSON and a call's answer", () => {
    const { command, args } = mcpboxCommand();
    const tools = (extra: string[]) => {
      const r = spawnSync(command, [...args, "tools", ...extra, "-c", p.config], {
        cwd: p.dir,
        encoding: "utf8",
        timeout: 170_000,
        env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1", MCPBOX_SEC_NAMES_KEY: SECRET },
      });
      if (r.error) throw r.error;
      return r;
    };
    const list = tools([]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain("evil__echo");
    expect(list.stdout).toContain("[redacted]");
    const json = tools(["--json"]);
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).tools.length).toBe(2); // echo and use_<key>: the hidden one is not listed
    // the server's answer holds the key (this one echoes what it was sent, as encoded)
    const call = tools(["--call", "evil__echo", JSON.stringify({ note: Buffer.from(SECRET).toString("base64") })]);
    expect(call.stdout).toContain("hostile: ");
    for (const r of [list, json, call]) expect(`${r.stdout}${r.stderr}`.includes(SECRET) || `${r.stdout}`.includes(Buffer.from(SECRET).toString("base64")), r.stdout).toBe(false);
  });
});
