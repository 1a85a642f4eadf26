/**
 * Gateway modes and policies end to end: the transparent proxy, secrets (passed in, redacted, missing), the per-call
 * timeout, restart: never, and `mcpbox tools` listing and calling.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { LABEL } from "../src/policy/labels.ts";
import { ensureTestImage, nodeBaseImage } from "./helpers/images.ts";
import { auditLines, connect, containersOf, FIXTURES, mcpboxCommand, project, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";

const SECRET = "s3cr3t-value-7f9a2c";
const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content ?? "");
let everything: string;
let filesystem: string;
let node: string;
let p: TestProject;
let gw: Connected;

beforeAll(async () => {
  everything = await ensureTestImage("mcpbox-test/everything:latest");
  filesystem = await ensureTestImage("mcpbox-test/filesystem:latest");
  node = await nodeBaseImage();
  p = project({
    ev: { image: everything, secrets: { API_KEY: { env: "MCPBOX_E2E_SECRET" } }, timeouts: { callMs: 3000 }, tools: { deny: ["get-tiny-image"] }, approve: ["get-sum"] },
    raw: { image: node, command: ["node", "/fixture/raw-server.mjs"], mounts: [{ source: FIXTURES, target: "/fixture" }], restart: "never" },
  });
  gw = await connect(p, { env: { MCPBOX_E2E_SECRET: SECRET } });
});

afterAll(async () => {
  await gw?.client.close();
});

function mcpbox(args: string[], env: Record<string, string> = {}) {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args], {
    cwd: p.dir,
    env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1", ...env },
    encoding: "utf8",
    input: "",
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("gateway modes and policies", () => {
  it("passes secrets into the container and keeps them out of the audit log and stderr", async () => {
    const env = await gw.client.callTool({ name: "ev__get-env", arguments: {} });
    expect(text(env)).toContain(SECRET);
    await gw.client.callTool({ name: "ev__echo", arguments: { message: `the key is ${SECRET}` } });
    const line = await waitFor("the echo audit line", () => auditLines(p).find((l) => l.tool === "echo"));
    expect(JSON.stringify(line)).not.toContain(SECRET);
    expect(JSON.stringify(line)).toContain("[redacted]");
    expect(gw.stderr()).not.toContain(SECRET);
    const [ev] = (await containersOf(gw.pid)).filter((c) => c.Labels[LABEL.server] === "ev");
    const args = (await engine().getContainer(ev!.Id).inspect()).Args.join(" ");
    expect(args).not.toContain(SECRET);
  });

  it("refuses an approve tool, saying why, when the client cannot ask a person", async () => {
    const r = await gw.client.callTool({ name: "ev__get-sum", arguments: { a: 1, b: 2 } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("no elicitation support");
    await waitFor("the denied audit line", () => auditLines(p).find((l) => l.tool === "get-sum" && l.outcome === "denied"));
  });

  it("names the missing secret's variable, not a value, and fails only that server (SPEC 4.2)", () => {
    const r = mcpbox(["serve", "-c", p.config], { MCPBOX_E2E_SECRET: "" });
    expect(r.code).toBe(0); // the other server was served until stdin closed (server-failures.test.ts shows the client's side)
    expect(r.stderr).toContain("mcpbox: ev: failed: secret API_KEY needs the environment variable MCPBOX_E2E_SECRET, which is not set");
    expect(r.stderr).toMatch(/mcpbox: gateway \w+ serving ev, raw\n/);
    expect(r.stdout).toBe("");
  });

  it("ends a call at timeouts.callMs with an error and audits it as timeout", async () => {
    const call = gw.client.callTool({ name: "ev__trigger-long-running-operation", arguments: { duration: 30, steps: 30 } });
    await expect(call).rejects.toThrow(/timed out after 3000 ms/);
    await waitFor("a timeout audit line", () => auditLines(p).find((l) => l.outcome === "timeout"));
    expect(text(await gw.client.callTool({ name: "ev__echo", arguments: { message: "after timeout" } }))).toContain("after timeout");
  });

  it("leaves a restart: never server down with a clear error", async () => {
    const [raw] = (await containersOf(gw.pid)).filter((c) => c.Labels[LABEL.server] === "raw");
    await engine().getContainer(raw!.Id).kill();
    const error = await waitFor("raw to be reported down", async () =>
      gw.client.callTool({ name: "raw__echo", arguments: { text: "x" } }).then(() => undefined, (e: Error) => e.message),
    );
    expect(error).toContain("restart: never");
    await waitFor("raw's container removed", async () =>
      (await containersOf(gw.pid)).some((c) => c.Labels[LABEL.server] === "raw") ? undefined : true,
    );
    expect(text(await gw.client.callTool({ name: "ev__echo", arguments: { message: "ev fine" } }))).toContain("ev fine");
  });

  it("is a transparent proxy for one server without prefix", async () => {
    const t = project({ files: { image: filesystem, args: ["/data"], mounts: [{ source: "./files", target: "/data" }], prefix: false } });
    fs.mkdirSync(path.join(t.dir, "files"));
    fs.writeFileSync(path.join(t.dir, "files/a.txt"), "transparent");
    const c = await connect(t, { args: ["files"] });
    try {
      const names = (await c.client.listTools()).tools.map((x) => x.name);
      expect(names).toContain("read_text_file");
      expect(names.some((n) => n.includes("__"))).toBe(false);
      expect(c.client.getServerCapabilities()?.tools).toBeDefined();
      expect(c.client.getServerCapabilities()?.prompts).toBeUndefined();
      expect(text(await c.client.callTool({ name: "read_text_file", arguments: { path: "/data/a.txt" } }))).toContain("transparent");
    } finally {
      await c.client.close();
    }
  });

  it("mcpbox tools lists the tools a client sees, as a table and as JSON", () => {
    const env = { MCPBOX_E2E_SECRET: SECRET };
    const table = mcpbox(["tools", "-c", p.config, "ev"], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^SERVER\s+TOOL\s+DESCRIPTION/);
    expect(table.stdout).toMatch(/^ev\s+ev__echo\s+\S/m);
    expect(table.stdout).not.toContain("ev__get-tiny-image");
    const json = mcpbox(["tools", "-c", p.config, "--json", "ev"], env);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { tools: { server: string; name: string; description: string }[] };
    expect(doc.tools).toContainEqual(expect.objectContaining({ server: "ev", name: "ev__echo" }));
  });

  it("mcpbox tools --call prints the result and exits 1 when it is an error", () => {
    const env = { MCPBOX_E2E_SECRET: SECRET };
    const ok = mcpbox(["tools", "-c", p.config, "ev", "--call", "ev__echo", "--args", '{"message":"called from the CLI"}'], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("called from the CLI");
    // the SPEC's form: the JSON arguments right after the tool name
    const inline = mcpbox(["tools", "-c", p.config, "ev", "--call", "ev__echo", '{"message":"inline arguments"}'], env);
    expect(inline.code).toBe(0);
    expect(inline.stdout).toContain("inline arguments");
    const denied = mcpbox(["tools", "-c", p.config, "ev", "--call", "ev__get-tiny-image"], env);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain("not allowed");
  });
});
