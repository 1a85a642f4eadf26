/**
 * Boundary 12 (hrev, round 3): a `file:` URI is read as URL parsers read it. The URL standard (Node's `new URL` and
 * `fileURLToPath`) and Python's urlsplit cut leading and trailing C0 controls and spaces and drop tabs and newlines
 * anywhere, so ` file:///etc/passwd` and `fi\tle:///proc/self/environ` name those files to a server; the guard
 * tested for `file:` at the first character only and let them through under any name (`uri`, `resource`, `text`).
 * The hostile server echoes what reaches it, behind a mount at /data; each call must be refused by the gateway (its
 * own refusal, never the echo) and audited denied; the same forms naming a file inside the mount still pass.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
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

const HIDDEN: Record<string, unknown>[] = [
  { uri: " file:///etc/passwd" },
  { resource: "\tfile:///proc/self/environ" },
  { text: "fi\nle:///etc/shadow" },
  { items: [{ link: "\u0001FILE://localhost/etc/passwd " }] },
  { source: " /etc/passwd" },
];

describe("a file: URI is read as URL parsers read it", () => {
  it("(each of those file: URIs names a file outside the mount to a server reading it with fileURLToPath)", () => {
    for (const v of [" file:///etc/passwd", "\tfile:///proc/self/environ", "fi\nle:///etc/shadow", "\u0001FILE://localhost/etc/passwd "]) {
      expect(fileURLToPath(v)).toMatch(/^\/(etc|proc)\//);
    }
  });

  it("still passes the same forms naming a file inside the mount", async () => {
    const r = await gw.client.callTool({ name: "evil__echo", arguments: { uri: " file:///data/a.txt", text: "fi\tle:///data/b.txt\n" } });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("hostile: ");
  });

  it.each(HIDDEN.map((a) => [JSON.stringify(a), a]))("refuses %s before the container", async (_, args) => {
    const r = await gw.client.callTool({ name: "evil__echo", arguments: args });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^mcpbox refused this call: argument "/);
    expect(textOf(r)).not.toContain("hostile: "); // the server never saw it
    const same = (l: Record<string, unknown>) => l.tool === "echo" && JSON.stringify(l.arguments) === JSON.stringify(args);
    const line = await waitFor("its audit line", () => auditLines(p).find(same));
    expect(line.outcome).toBe("denied");
  });
});
