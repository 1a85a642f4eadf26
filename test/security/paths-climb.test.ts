/**
 * Boundary 12 (hrev, round 3): a relative value that climbs with `..` under a name that often holds a path (`source`,
 * `input`, `cwd`, `uri`, ...) is judged as a path. Such names were judged only when the value started with / \ ~ or
 * ., so `x/../../proc/self/environ` reached the server, which resolves it from its working folder (often /, here
 * the hostile fixture's /app) and reads outside every mount: a prompt-injected call could read the server's own
 * secrets in /proc/self/environ or any file of its image. The hostile server echoes what reaches it, behind a mount
 * at /data; each of these calls must be refused by the gateway (its own refusal, never the echo) and audited denied.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLines, connect, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { hostileServer, textOf } from "./_hostile.ts";

let p: TestProject;
let gw: Connected;

beforeAll(async () => {
  p = project({ evil: hostileServer({ extra: { mounts: [{ source: "./files", target: "/data" }] } }) });
  fs.mkdirSync(path.join(p.dir, "files"));
  gw = await connect(p);
});

afterAll(async () => {
  await gw?.client.close();
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

const CLIMBING: Record<string, unknown>[] = [
  { source: "x/../../proc/self/environ", destination: "/data/out.txt" },
  { input: "data/../../../etc/passwd" },
  { cwd: "tmp/..%2f..%2fetc" },
  { options: { uri: "a\\..\\..\\etc\\shadow" } },
];

describe("a relative value that climbs is judged as a path", () => {
  it("still passes a relative word or file name under such a name", async () => {
    const r = await gw.client.callTool({ name: "evil__echo", arguments: { source: "en", input: "docs/readme.md" } });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("hostile: ");
  });

  it.each(CLIMBING.map((a) => [JSON.stringify(a), a]))("refuses %s before the container", async (_, args) => {
    const r = await gw.client.callTool({ name: "evil__echo", arguments: args });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^mcpbox refused this call: argument "[^"]+" \(.*\) is a relative path/);
    expect(textOf(r)).not.toContain("hostile: "); // the server never saw it
    const same = (l: Record<string, unknown>) => l.tool === "echo" && JSON.stringify(l.arguments) === JSON.stringify(args);
    const line = await waitFor("its audit line", () => auditLines(p).find(same));
    expect(line.outcome).toBe("denied");
  });
});
