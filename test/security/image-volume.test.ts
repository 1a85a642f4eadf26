/**
 * Boundary 5 on the host's disk (hrev): a server's root is read-only and its /tmp a tmpfs within its memory limit,
 * but a VOLUME its image declares became an anonymous volume the engine made on the host's disk, writable past both
 * and bounded by nothing: a hostile image (`image:` or `build:`) wrote there at GB/s until the host's disk was full,
 * for as long as the session lasted. The hostile fixture: an image declaring /data (owned by the server's user) whose
 * server writes 160 MiB there; it must get a tmpfs of the /tmp size instead (ENOSPC past it), no volume at all.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { REPO, connect, containersOf, project, type Connected, type TestProject } from "../helpers/gateway.ts";
import { textOf } from "./_hostile.ts";

const MiB = 1024 * 1024;
let p: TestProject;
let c: Connected;

beforeAll(async () => {
  p = project({
    vol: { build: { context: path.join(REPO, "test/fixtures/image-volume") }, limits: { tmpfs: "32m" }, timeouts: { startupMs: 120_000, callMs: 60_000 } },
  });
  c = await connect(p);
}, 300_000);

afterAll(async () => {
  await c?.client.close().catch(() => {});
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("a VOLUME of a server's image", () => {
  it("is a tmpfs of the /tmp size, never an unbounded volume on the host's disk", async () => {
    const where = textOf(await c.client.callTool({ name: "vol__where", arguments: {} }, undefined, { timeout: 120_000 }));
    const filled = textOf(await c.client.callTool({ name: "vol__fill", arguments: { mib: 160 } }, undefined, { timeout: 60_000 }));
    const wrote = Number(/wrote (\d+)/.exec(filled)?.[1]);
    expect(wrote, filled).toBeLessThanOrEqual(32 * MiB);
    expect(filled).toMatch(/ENOSPC/);
    expect(wrote, "it can still write there").toBeGreaterThan(0);
    expect(where).toBe("tmpfs");
    const [container] = (await containersOf(c.pid)).filter((x) => x.Labels["mcpbox.server"] === "vol");
    const info = await engine().getContainer(container!.Id).inspect();
    expect(info.Mounts.filter((m) => m.Type === "volume"), "no volume on the host's disk").toEqual([]);
  });
});
