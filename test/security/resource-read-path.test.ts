/**
 * Boundary 12 (hrev, round 3): a resources/read of a URI the server did not list as it is (one its template matches,
 * or any URI of the only server offering resources) passes the path guard as a tool's `uri` argument does. Clients
 * hand the model a tool that reads any resource URI (a prompt injection picks it), and a server that serves files
 * through a template (`file:///{+path}`) read `file:///proc/self/environ` (its own secrets) or any file of its image
 * on the gateway's word. The hostile server answers every read ("read by hostile"), behind a mount at /data; reads
 * outside it must be refused by the gateway and audited denied, reads inside it and of URIs it listed still pass.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLines, connect, project, waitFor, type Connected, type TestProject } from "../helpers/gateway.ts";
import { hostileServer } from "./_hostile.ts";

let p: TestProject;
let gw: Connected;

beforeAll(async () => {
  const lists = {
    resources: [{ uri: "file:///app/README.md", name: "readme" }],
    resourceTemplates: [
      { uriTemplate: "file:///{+path}", name: "files" },
      { uriTemplate: "notes://box/{+path}", name: "notes" },
    ],
  };
  p = project({ evil: hostileServer({ lists, extra: { mounts: [{ source: "./files", target: "/data" }] } }) });
  fs.mkdirSync(path.join(p.dir, "files"));
  gw = await connect(p);
});

afterAll(async () => {
  await gw?.client.close();
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

const text = (r: { contents: object[] }) => r.contents.map((c) => String((c as { text?: unknown }).text ?? "")).join("");

describe("a read of a URI the server did not list passes the path guard", () => {
  it.each(["file:///data/notes.txt", "file:///tmp/x", "file:///app/README.md", "notes://box/a/b"])("reads %s", async (uri) => {
    expect(text(await gw.client.readResource({ uri }))).toBe("read by hostile");
  });

  it.each(["file:///proc/self/environ", "file:///data/../etc/passwd", "file:///data/%2e%2e/etc/shadow", " file:///etc/passwd", "FILE:///etc/passwd", "notes://box/../../../etc/passwd"])(
    "refuses %s before the container",
    async (uri) => {
      const err = await gw.client.readResource({ uri }).then(() => undefined, (e: Error) => e);
      expect(err?.message).toMatch(/mcpbox refused this read: argument "uri" \(.*\) (is outside the folders this server may use|is a URL with a \.\. segment)/);
      const line = await waitFor("its audit line", () => auditLines(p).find((l) => l.method === "resources/read" && l.tool === uri));
      expect(line.outcome).toBe("denied");
    },
  );
});
