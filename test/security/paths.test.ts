/**
 * Boundary 12: the path guard sees every path. The hostile server echoes whatever arguments reach it, behind a
 * mount at /data; calls that hide a path outside it (nested, as a file: URI in any case or with a host, %-encoded,
 * relative, ~) must be refused by the gateway (its own refusal, never the echo) and audited as denied, through
 * `mcpbox serve` (the fast lane) and `mcpbox tools --call` (the SDK path).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLines, connect, mcpboxCommand, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { hostileServer, textOf } from "./_hostile.ts";

let p: TestProject;
let gw: Connected;

beforeAll(async () => {
  p = project({ evil: hostileServer({ extra: { mounts: [{ source: "./files", target: "/data" }], pathArguments: ["target"] } }) });
  fs.mkdirSync(path.join(p.dir, "files"));
  gw = await connect(p);
});

afterAll(async () => {
  await gw?.client.close();
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

const HIDDEN: Record<string, unknown>[] = [
  { edits: [{ path: "/data/ok.txt", text: "x" }, { path: "/etc/passwd", text: "x" }] },
  { options: { file: "/etc/shadow" } },
  { uri: "FILE:///etc/passwd" },
  { resource: "File://localhost/etc/passwd" },
  { link: "file:///data/%2e%2e/etc/passwd" },
  { path: "../../etc/passwd" },
  { path: "etc/passwd" },
  { path: "/data/%2e%2e/%2e%2e/etc/passwd" },
  { path: "/data/..\\..\\etc\\passwd" },
  { url: "~/.ssh/id_rsa" },
  { list: [{ target: "/proc/self/environ" }] },
];

describe("the path guard sees every path", () => {
  it("lets a path inside the mount through to the server", async () => {
    const r = await gw.client.callTool({ name: "evil__echo", arguments: { edits: [{ path: "/data/ok.txt" }], uri: "file:///data/x" } });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("hostile: ");
  });

  it.each(HIDDEN.map((a) => [JSON.stringify(a), a]))("refuses %s before the container", async (_, args) => {
    const r = await gw.client.callTool({ name: "evil__echo", arguments: args });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^mcpbox refused this call: argument "/);
    expect(textOf(r)).not.toContain("hostile: "); // the echo never saw it
    const same = (l: Record<string, unknown>) => l.tool === "echo" && JSON.stringify(l.arguments) === JSON.stringify(args);
    const line = await waitFor("its audit line", () => auditLines(p).find(same));
    expect(line.outcome).toBe("denied");
  });

  it("refuses a nested path through mcpbox tools --call as well", () => {
    const { command, args } = mcpboxCommand();
    const r = spawnSync(command, [...args, "tools", "-c", p.config, "--call", "evil__echo", JSON.stringify({ a: { b: [{ filePath: "/etc/hosts" }] } })], {
      cwd: p.dir,
      encoding: "utf8",
      timeout: 170_000,
      env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" },
    });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toContain('mcpbox refused this call: argument "a.b[0].filePath" (/etc/hosts) is outside the folders');
    expect(r.stdout).not.toContain("hostile: ");
  });
});
