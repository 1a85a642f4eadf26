/**
 * Boundary 11: nothing a server controls reaches a terminal raw. The hostile server puts escape sequences (CSI, OSC
 * titles and hyperlinks, DCS, 8-bit C1, CR overwrites, fake newlines) in its tool descriptions, its answers, its
 * stderr and its stdout; a hostile Dockerfile's RUN prints them in a build log. What `mcpbox tools`, `mcpbox serve`
 * and `mcpbox build` print must hold none of them, and still show the text around them.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connect, mcpboxCommand, project, waitFor, type TestProject } from "../helpers/gateway.ts";
import { nodeBaseImage } from "../helpers/images.ts";
import { hostileServer, tempDir } from "./_hostile.ts";

/** Every C0 control but \t and \n, DEL and every C1 control (as the UTF-8 text a terminal decodes). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const NASTY = "\x1b]0;pwned\x07\x1b[2J\x1b[1;31m\u009b5m\x1bP1$r\x1b\\\x1b]8;;http://evil.invalid\x1b\\";

const made: TestProject[] = [];
afterAll(() => {
  for (const p of made) fs.rmSync(p.dir, { recursive: true, force: true });
});

function mcpbox(p: TestProject, args: string[]) {
  const { command, args: pre } = mcpboxCommand();
  const r = spawnSync(command, [...pre, ...args, "-c", p.config], {
    cwd: p.dir,
    encoding: "utf8",
    timeout: 170_000,
    env: { ...process.env, MCPBOX_HOME: p.home, NO_COLOR: "1" },
  });
  if (r.error) throw r.error;
  return r;
}

/** JSON with every non-ASCII character escaped: config values may hold no control character (boundary 8). */
const ascii = (v: unknown) => JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

const shown = (s: string) => JSON.stringify(s.match(new RegExp(`.{0,30}${RAW_CONTROL.source}.{0,30}`))?.[0]);

describe("escape sequences from a server never reach the terminal", () => {
  it("mcpbox tools: descriptions and answers are printed without them", () => {
    const p = project({
      evil: hostileServer({
        extra: {
          env: {
            HOSTILE_LISTS: ascii({
              tools: [
                { name: "echo", description: `${NASTY}echoes\rOVERWRITTEN`, inputSchema: { type: "object" } },
                { name: "other", description: `\u009b2Jplain\x1b[?1049h second`, inputSchema: { type: "object" } },
              ],
            }),
          },
        },
      }),
    });
    made.push(p);
    const list = mcpbox(p, ["tools"]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain("echoes");
    expect(list.stdout).toContain("plain");
    expect(RAW_CONTROL.test(list.stdout), shown(list.stdout)).toBe(false);
    expect(RAW_CONTROL.test(list.stderr), shown(list.stderr)).toBe(false);

    const json = mcpbox(p, ["tools", "--json"]);
    expect(json.status, json.stderr).toBe(0);
    expect(RAW_CONTROL.test(json.stdout), shown(json.stdout)).toBe(false);
    const doc = JSON.parse(json.stdout) as { tools: { description: string }[] };
    expect(doc.tools.map((t) => t.description).join()).toContain("\u009b2Jplain"); // exact in JSON, only escaped

    // the echo's answer quotes the arguments as JSON, which leaves 8-bit controls raw
    const call = mcpbox(p, ["tools", "--call", "evil__echo", ascii({ text: "\u009b2J\u009d0;pwned\u009canswer-marker" })]);
    expect(call.status, call.stderr).toBe(0);
    expect(call.stdout).toContain("answer-marker");
    expect(RAW_CONTROL.test(call.stdout), shown(call.stdout)).toBe(false);
  });

  it("mcpbox serve: the server's stderr and stdout lines reach stderr without them", async () => {
    const p = project({
      evil: hostileServer({
        extra: {
          env: { HOSTILE_ON_START: ascii([{ stderr: `${NASTY}stderr-marker\rFAKE\nmcpbox: forged line` }, { write: `${NASTY}not json stdout-marker` }]) },
        },
      }),
    });
    made.push(p);
    const gw = await connect(p);
    try {
      await gw.client.listTools();
      await waitFor("both lines on stderr", () => gw.stderr().includes("stderr-marker") && gw.stderr().includes("stdout-marker"), 60_000);
    } finally {
      await gw.client.close();
    }
    const err = gw.stderr();
    expect(RAW_CONTROL.test(err), shown(err)).toBe(false);
    // the server's own newline is shown, not obeyed: no line of the server's starts as mcpbox's do
    expect(err.split("\n").filter((l) => l.startsWith("mcpbox: forged"))).toEqual([]);
  });

  it("mcpbox build: a failing RUN's output is reported without them", async () => {
    const dir = tempDir("terminal");
    fs.chmodSync(dir, 0o755);
    const ctx = path.join(dir, "ctx");
    fs.mkdirSync(ctx);
    const base = await nodeBaseImage();
    // printf turns the octal escapes into real ESC, BEL and CSI bytes in the build log
    fs.writeFileSync(
      path.join(ctx, "Dockerfile"),
      `FROM ${base}\nRUN printf '\\033]0;pwned\\007\\033[2J\\302\\2335mbuild-marker\\r\\033[1A\\n' && exit 3\n`,
    );
    const p: TestProject = { dir, home: path.join(dir, ".mcpbox"), config: path.join(dir, "sandbox.config.json") };
    fs.writeFileSync(p.config, JSON.stringify({ servers: { bad: { build: { context: "./ctx" } } } }));
    made.push(p);
    const r = mcpbox(p, ["build", "--no-cache"]);
    expect(r.status).toBe(1);
    expect(r.stdout + r.stderr).toContain("build-marker");
    expect(RAW_CONTROL.test(r.stdout), shown(r.stdout)).toBe(false);
    expect(RAW_CONTROL.test(r.stderr), shown(r.stderr)).toBe(false);
  });
});
