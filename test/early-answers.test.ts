/**
 * The recorded answers end to end (issue 15: spawn → tools/list): `mcpbox serve` keeps its own answers to the client's
 * initialize and first tools/list under $MCPBOX_HOME/cache/answers, and the next start of the same set-up gives them
 * before its code loads; the gateway still answers both itself and corrects what differed (list_changed). A record
 * file that is a link, or that others may read or write, is never believed (SECURITY.md boundary 10).
 * The server sleeps before it speaks, so "before it is up" is seconds, not a race.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { project, serveOnce, slowServerProject, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";
import { hostileServer } from "./security/_hostile.ts";

const SLEEP_S = 5;
const TOOLS = ["slow__add_tool", "slow__echo", "slow__flood"];
let p: TestProject;
let TAG: string;
let removeProject: () => Promise<void>;
const answersDir = () => path.join(p.home, "cache", "answers");
const recordFile = () => {
  const files = fs.existsSync(answersDir()) ? fs.readdirSync(answersDir()).filter((f) => f.endsWith(".json")) : [];
  expect(files).toHaveLength(1);
  return path.join(answersDir(), files[0]!);
};
type Answer = { method: string; params: string; result: string };
const answers = (file = recordFile()) => (JSON.parse(fs.readFileSync(file, "utf8")) as { answers: Answer[] }).answers;

beforeAll(async () => {
  ({ p, tag: TAG, remove: removeProject } = await slowServerProject("mcpbox-test/early-answers", SLEEP_S));
});

afterAll(() => removeProject());

const serve = <T>(body: (gw: Connected, changes: () => number, t0: number) => Promise<T>) => serveOnce(p, body);
const names = async (gw: Connected) => (await gw.client.listTools()).tools.map((t) => t.name).sort();

/** A recorded tools/list result with one more tool, written back as this user's 0600 file (believed). */
function plantTool(file: string, name: string): void {
  const record = JSON.parse(fs.readFileSync(file, "utf8")) as { answers: Answer[] };
  for (const a of record.answers) {
    if (a.method !== "tools/list") continue;
    const result = JSON.parse(a.result) as { tools: unknown[] };
    result.tools.push({ name, description: "only in the record", inputSchema: { type: "object" } });
    a.result = JSON.stringify(result);
  }
  fs.writeFileSync(file, JSON.stringify(record), { mode: 0o600 });
}

describe("serve with the answers of an earlier run", () => {
  it("first run: the gateway's answers to initialize and tools/list are recorded in a private file", async () => {
    await serve(async (gw, _changes, t0) => {
      expect(await names(gw)).toEqual(TOOLS);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(SLEEP_S * 1000); // nothing recorded yet: it waited for the server
    });
    const file = recordFile();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(answersDir()).mode & 0o777).toBe(0o700);
    expect(answers().map((a) => a.method).sort()).toEqual(["initialize", "tools/list"]);
  });

  it("next run: the recorded answers are given at once and agree with the gateway's own (no list_changed)", async () => {
    await serve(async (gw, changes, t0) => {
      expect(await names(gw)).toEqual(TOOLS);
      expect(Date.now() - t0).toBeLessThan(SLEEP_S * 1000 - 1000); // the server still sleeps
      const r = await gw.client.callTool({ name: "slow__echo", arguments: { text: "after the early answers" } });
      expect(JSON.stringify(r.content)).toContain("after the early answers");
      await new Promise((res) => setTimeout(res, 300));
      expect(changes()).toBe(0);
    });
  });

  it("a record that differs from the gateway's answer: shown first, then list_changed and the gateway's own list; rewritten", async () => {
    const file = recordFile();
    plantTool(file, "slow__recorded_only");
    await serve(async (gw, changes) => {
      expect(await names(gw)).toEqual(["slow__recorded_only", ...TOOLS].sort()); // what the record says: given early
      await waitFor("list_changed", () => (changes() > 0 ? true : undefined), 15_000);
      expect(await names(gw)).toEqual(TOOLS);
      // a call reaches only a tool the gateway itself lists
      const r = await gw.client.callTool({ name: "slow__recorded_only", arguments: {} }).catch((e: unknown) => ({ isError: true, content: String(e) }));
      expect(r.isError).toBe(true);
    });
    await waitFor("the record rewritten", () => (!fs.readFileSync(file, "utf8").includes("recorded_only") ? true : undefined));
  });

  it("a record file that others may read or write is not believed", async () => {
    const file = recordFile();
    plantTool(file, "slow__planted_mode");
    fs.chmodSync(file, 0o644);
    await serve(async (gw) => {
      expect(await names(gw)).toEqual(TOOLS);
    });
    await waitFor("the record replaced", () => ((fs.statSync(file).mode & 0o777) === 0o600 ? true : undefined));
    expect(fs.readFileSync(file, "utf8")).not.toContain("planted_mode");
  });

  it("a record file that is a link is not followed", async () => {
    const file = recordFile();
    const elsewhere = path.join(p.dir, "forged-answers.json");
    fs.copyFileSync(file, elsewhere);
    fs.chmodSync(elsewhere, 0o600);
    plantTool(elsewhere, "slow__planted_link");
    fs.rmSync(file);
    fs.symlinkSync(elsewhere, file);
    await serve(async (gw) => {
      expect(await names(gw)).toEqual(TOOLS);
    });
    await waitFor("the link replaced by a file", () => (fs.lstatSync(file).isFile() ? true : undefined));
    expect(fs.readFileSync(elsewhere, "utf8")).toContain("planted_link"); // never written through
    expect(fs.readFileSync(file, "utf8")).not.toContain("planted_link");
  });
});

describe("a secret in the gateway's answers", () => {
  const SECRET = "sk_live_Early7Rq2Vn9Wp4Xt6Yz";
  // a server that spells the secret value it was given into its tool list (SPEC 4.5: never written anywhere)
  const LISTER = [
    'require("readline").createInterface({ input: process.stdin }).on("line", (l) => { const m = JSON.parse(l); if (m.id === undefined) return;',
    'const r = m.method === "initialize" ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "lister", version: "1" } }',
    ': m.method === "tools/list" ? { tools: [{ name: "call", description: "calls https://api.example.test/?key=" + process.env.API_KEY, inputSchema: { type: "object" } }] } : {};',
    'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: r }) + String.fromCharCode(10)); });',
  ].join(" "); // one line: a command holds no control characters
  let q: TestProject;
  beforeAll(() => {
    q = project({ lister: { image: TAG, command: ["node", "-e", LISTER], secrets: { API_KEY: { env: "MCPBOX_EARLY_ANSWERS_KEY" } } } });
  });
  afterAll(() => fs.rmSync(q.dir, { recursive: true, force: true }));

  it("is never written into the record", async () => {
    for (let run = 0; run < 2; run++) {
      await serveOnce(
        q,
        async (gw) => {
          const { tools } = await gw.client.listTools();
          expect(tools[0]?.description).toContain("api.example.test"); // the server ran and listed (redacted or not)
        },
        { env: { MCPBOX_EARLY_ANSWERS_KEY: SECRET } },
      );
    }
    const dir = path.join(q.home, "cache", "answers");
    const texts = fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), "utf8")) : [];
    expect(texts.some((t) => t.includes("initialize"))).toBe(true); // the record was written, with what holds no secret
    expect(texts.filter((t) => t.includes(SECRET))).toEqual([]);
  });
});

describe("a build: server (its image id is its content tag's, planned without building)", () => {
  let b: TestProject;
  const tools = [{ name: "built_tool", description: "from a build: server", inputSchema: { type: "object" } }];
  beforeAll(() => {
    b = project({ built: hostileServer({ lists: { tools } }) });
  });
  afterAll(() => fs.rmSync(b.dir, { recursive: true, force: true }));

  it("gets the recorded answers too", async () => {
    const run = (body: (gw: Connected, changes: () => number) => Promise<void>) => serveOnce(b, body);
    // the first start builds the image: the set-up has no key until it is there; the second records
    await run(async (gw) => expect(await names(gw)).toEqual(["built__built_tool"]));
    await run(async (gw) => expect(await names(gw)).toEqual(["built__built_tool"]));
    const dir = path.join(b.home, "cache", "answers");
    await waitFor("the record written", () => (fs.existsSync(dir) && fs.readdirSync(dir).some((f) => f.endsWith(".json")) ? true : undefined));
    plantTool(path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith(".json"))!), "built__recorded_only");
    await run(async (gw, changes) => {
      expect(await names(gw)).toEqual(["built__built_tool", "built__recorded_only"]); // given from the record
      await waitFor("list_changed", () => (changes() > 0 ? true : undefined), 15_000);
      expect(await names(gw)).toEqual(["built__built_tool"]);
    });
  });
});

