/**
 * Boundary 5 on the host's disk (hrev): the gateway reads a server's stdout and stderr through the engine's attach
 * stream, but its containers were created with the engine's default log driver (json-file, no size limit, on Docker
 * and Podman alike), so the engine also wrote every byte a server printed to a file under /var/lib/docker (or
 * Podman's storage), kept until the container goes: a server printing stderr as fast as it can filled the host's
 * disk at hundreds of MiB/s for as long as the session lasted, and every answer it gave (a tool's output, what it
 * read with a secret) lay on disk there too. The hostile fixture floods stderr and answers with a marker; the engine
 * must hold no log of it (the log driver "none": nothing is written, `docker logs` has nothing to read), and the
 * gateway still gets both (its own stream is the attach).
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engine } from "../../src/docker/engine.ts";
import { connect, containersOf, project, type Connected, type TestProject } from "../helpers/gateway.ts";
import { engineLog, hostileServer, textOf } from "./_hostile.ts";

let p: TestProject;
let c: Connected;

beforeAll(async () => {
  p = project({ evil: hostileServer({ name: "evil" }) });
  c = await connect(p);
});

afterAll(async () => {
  await c?.client.close().catch(() => {});
  if (p) fs.rmSync(p.dir, { recursive: true, force: true });
});

describe("a server's output reaches the gateway, never the engine's log on the host's disk", () => {
  it("keeps nothing of an 8 MiB stderr flood or of an answer", async () => {
    const flood = [{ repeat: 8 * 1024, do: [{ stderr: `FLOOD-${"e".repeat(1017)}` }] }];
    await c.client.callTool({ name: "evil__attack", arguments: { actions: flood } }, undefined, { timeout: 120_000 });
    const answer = await c.client.callTool({ name: "evil__echo", arguments: { text: "ANSWER-7f3a" } });
    expect(textOf(answer)).toContain("ANSWER-7f3a"); // the gateway got it, through the attach stream
    const [container] = (await containersOf(c.pid)).filter((x) => x.Labels["mcpbox.server"] === "evil");
    expect(container, "the server's container").toBeDefined();
    const info = await engine().getContainer(container!.Id).inspect();
    const log = await engineLog(container!.Id);
    const text = log.toString("latin1");
    expect(text.includes("FLOOD-"), `the engine kept ${log.length} bytes of its output (driver ${info.HostConfig.LogConfig?.Type})`).toBe(false);
    expect(text.includes("ANSWER-7f3a")).toBe(false);
    expect(info.HostConfig.LogConfig?.Type).toBe("none");
    if (info.LogPath) expect(fs.existsSync(info.LogPath) ? fs.statSync(info.LogPath).size : 0).toBeLessThan(64 * 1024);
  });
});
