/**
 * The catalog cache end to end (issue 15): `mcpbox serve` run again on the same home answers initialize and tools/list
 * from what its server offered when it last ran the same image, before the server is up; the first call waits for
 * it. A list that went stale is replaced (list_changed; a call to a tool the server no longer has fails clearly), a
 * changed image is another key, and a cache file someone else could have written is ignored with a warning.
 * The server sleeps before it speaks, so "before it is up" is seconds, not a race.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../src/docker/engine.ts";
import { serveOnce, slowServerProject, waitFor, type Connected, type TestProject } from "./helpers/gateway.ts";

const SLEEP_S = 6;
const REPO = "mcpbox-test/catalog-cache";
let p: TestProject;
let TAG: string;
let removeProject: () => Promise<void>;
const text = (r: unknown) => JSON.stringify((r as { content?: unknown }).content ?? "");
const catalogDir = () => path.join(p.home, "cache", "catalog");
const files = () => (fs.existsSync(catalogDir()) ? fs.readdirSync(catalogDir()).filter((f) => f.endsWith(".json")) : []);

beforeAll(async () => {
  ({ p, tag: TAG, remove: removeProject } = await slowServerProject(REPO, SLEEP_S));
});

afterAll(() => removeProject());

const serve = <T>(body: (gw: Connected, changes: () => number) => Promise<T>) => serveOnce(p, body);

/** Spawn → tools/list answered: the names and how long it took. */
async function listed(gw: Connected, t0: number): Promise<{ names: string[]; ms: number }> {
  const { tools } = await gw.client.listTools();
  return { names: tools.map((t) => t.name).sort(), ms: Date.now() - t0 };
}

describe("serve with the catalog of an earlier run", () => {
  it("first run: waits for the server and keeps what it offers in a private file", async () => {
    const t0 = Date.now();
    await serve(async (gw) => {
      const { names, ms } = await listed(gw, t0);
      expect(names).toEqual(["slow__add_tool", "slow__echo", "slow__flood"]);
      expect(ms).toBeGreaterThanOrEqual(SLEEP_S * 1000);
    });
    await waitFor("the catalog written", () => (files().length === 1 ? true : undefined));
    const st = fs.statSync(path.join(catalogDir(), files()[0]!));
    expect(st.mode & 0o777).toBe(0o600);
    expect(fs.statSync(catalogDir()).mode & 0o777).toBe(0o700);
  });

  it("second run: tools/list is answered before the server is up; the first call waits for it", async () => {
    const t0 = Date.now();
    await serve(async (gw, changes) => {
      const { names, ms } = await listed(gw, t0);
      expect(names).toEqual(["slow__add_tool", "slow__echo", "slow__flood"]);
      expect(ms).toBeLessThan(SLEEP_S * 1000 - 1000); // the server still sleeps
      const r = await gw.client.callTool({ name: "slow__echo", arguments: { text: "waited for" } });
      expect(text(r)).toContain("waited for");
      expect(Date.now() - t0).toBeGreaterThanOrEqual(SLEEP_S * 1000);
      await new Promise((res) => setTimeout(res, 300));
      expect(changes()).toBe(0); // the remembered list was the server's own
    });
  });

  it("a stale entry: shown at first, a call to the tool that went fails clearly, then list_changed and the real list", async () => {
    const file = path.join(catalogDir(), files()[0]!);
    const entry = JSON.parse(fs.readFileSync(file, "utf8"));
    entry.lists.tools.push({ name: "gone", description: "not in this server any more", inputSchema: { type: "object" } });
    fs.writeFileSync(file, JSON.stringify(entry)); // still 0600, this user's: believed
    // the catalog alone: the gateway's recorded answers, given before it reads the catalog, are early-answers.test.ts's
    fs.rmSync(path.join(p.home, "cache", "answers"), { recursive: true, force: true });
    const t0 = Date.now();
    await serve(async (gw, changes) => {
      const { names, ms } = await listed(gw, t0);
      expect(names).toContain("slow__gone");
      expect(ms).toBeLessThan(SLEEP_S * 1000 - 1000);
      await expect(gw.client.callTool({ name: "slow__gone", arguments: {} })).rejects.toThrow(/server slow no longer offers the tool gone/);
      await waitFor("list_changed", () => (changes() > 0 ? true : undefined));
      expect((await listed(gw, t0)).names).not.toContain("slow__gone");
    });
    await waitFor("the entry rewritten", () => (!fs.readFileSync(file, "utf8").includes('"gone"') ? true : undefined));
  });

  it("a cache file others may write is ignored with a warning, and replaced", async () => {
    const file = path.join(catalogDir(), files()[0]!);
    const entry = JSON.parse(fs.readFileSync(file, "utf8"));
    entry.lists.tools.push({ name: "planted", description: "written by someone else", inputSchema: { type: "object" } });
    fs.writeFileSync(file, JSON.stringify(entry));
    fs.chmodSync(file, 0o666);
    const t0 = Date.now();
    await serve(async (gw) => {
      const { names, ms } = await listed(gw, t0);
      expect(names).not.toContain("slow__planted");
      expect(ms).toBeGreaterThanOrEqual(SLEEP_S * 1000); // nothing believed: it waited for the server
      expect(gw.stderr()).toMatch(/warning: ignored the cached catalog .*others may read or write it \(mode 666\)/);
    });
    await waitFor("the entry replaced", () => ((fs.statSync(file).mode & 0o777) === 0o600 ? true : undefined));
    expect(fs.readFileSync(file, "utf8")).not.toContain("planted");
  });

  it("a changed image under the same reference is another key: nothing is shown from the old one", async () => {
    const docker = engine();
    const c = await docker.createContainer({ Image: TAG, Cmd: ["true"], Labels: { "mcpbox-test": "catalog-cache" } });
    try {
      await c.commit({ repo: REPO, tag: `e2e-${process.pid}`, changes: "LABEL mcpbox-test.catalog=2" });
    } finally {
      await c.remove({ force: true });
    }
    const t0 = Date.now();
    await serve(async (gw) => {
      const { names, ms } = await listed(gw, t0);
      expect(names).toEqual(["slow__add_tool", "slow__echo", "slow__flood"]);
      expect(ms).toBeGreaterThanOrEqual(SLEEP_S * 1000);
    });
    await waitFor("an entry for the new image", () => (files().length === 2 ? true : undefined));
  });
});
