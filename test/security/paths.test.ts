/**
 * Boundary 12: the path guard sees every path. The hostile server echoes whatever arguments reach it, behind a
 * mount at /data; calls that hide a path outside it (nested, as a file: URI in any case or with a host, %-encoded,
 * relative, ~) must be refused by the gateway (its own refusal, never the echo) and audited as denied, through
 * `mcpbox serve` (the fast lane) and `mcpbox tools --call` (the SDK path). Two forms hrev found (round 3) have blocks
 * of their own below: a relative value that climbs under a path-like name, and a file: URI as URL parsers read it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
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

/** The call is the gateway's refusal (`why` matching its text), the server never saw it, and its audit line says denied. */
async function refusedBeforeServer(args: Record<string, unknown>, why = /^mcpbox refused this call: argument "/): Promise<void> {
  const r = await gw.client.callTool({ name: "evil__echo", arguments: args });
  expect(r.isError).toBe(true);
  expect(textOf(r)).toMatch(why);
  expect(textOf(r)).not.toContain("hostile: "); // the echo never saw it
  const same = (l: Record<string, unknown>) => l.tool === "echo" && JSON.stringify(l.arguments) === JSON.stringify(args);
  const line = await waitFor("its audit line", () => auditLines(p).find(same));
  expect(line.outcome).toBe("denied");
}

/** The call reaches the server (its echo comes back). */
async function reachesServer(args: Record<string, unknown>): Promise<void> {
  const r = await gw.client.callTool({ name: "evil__echo", arguments: args });
  expect(r.isError).toBeFalsy();
  expect(textOf(r)).toContain("hostile: ");
}

describe("the path guard sees every path", () => {
  it("lets a path inside the mount through to the server", () => reachesServer({ edits: [{ path: "/data/ok.txt" }], uri: "file:///data/x" }));

  it.each(HIDDEN.map((a) => [JSON.stringify(a), a]))("refuses %s before the container", (_, args) => refusedBeforeServer(args));

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

/**
 * A relative value that climbs with `..` under a name that often holds a path (`source`, `input`, `cwd`, `uri`, ...)
 * is judged as a path. Such names were judged only when the value started with / \ ~ or ., so
 * `x/../../proc/self/environ` reached the server, which resolves it from its working folder (often /, here the hostile
 * fixture's /app) and reads outside every mount: the server's own secrets in /proc/self/environ, any file of its image.
 */
const CLIMBING: Record<string, unknown>[] = [
  { source: "x/../../proc/self/environ", destination: "/data/out.txt" },
  { input: "data/../../../etc/passwd" },
  { cwd: "tmp/..%2f..%2fetc" },
  { options: { uri: "a\\..\\..\\etc\\shadow" } },
];

describe("a relative value that climbs is judged as a path", () => {
  it("still passes a relative word or file name under such a name", () => reachesServer({ source: "en", input: "docs/readme.md" }));

  it.each(CLIMBING.map((a) => [JSON.stringify(a), a]))("refuses %s before the container", (_, args) =>
    refusedBeforeServer(args, /^mcpbox refused this call: argument "[^"]+" \(.*\) is a relative path/),
  );
});

/**
 * A `file:` URI is read as URL parsers read it. The URL standard (Node's `new URL` and `fileURLToPath`) and Python's
 * urlsplit cut leading and trailing C0 controls and spaces and drop tabs and newlines anywhere, so ` file:///etc/passwd`
 * and `fi\tle:///proc/self/environ` name those files to a server; the guard tested for `file:` at the first character
 * only and let them through under any name (`uri`, `resource`, `text`).
 */
const BLANKED: Record<string, unknown>[] = [
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

  it("still passes the same forms naming a file inside the mount", () => reachesServer({ uri: " file:///data/a.txt", text: "fi\tle:///data/b.txt\n" }));

  it.each(BLANKED.map((a) => [JSON.stringify(a), a]))("refuses %s before the container", (_, args) => refusedBeforeServer(args));
});
