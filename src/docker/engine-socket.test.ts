import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineSocket, imageIdOf, pingEngineSocket } from "./engine-socket.ts";

// a stand-in engine on a unix socket, found through DOCKER_HOST as a real one is (discovery runs once, at first use)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-engine-socket-"));
const sock = path.join(dir, "engine.sock");
const asked: string[] = [];
let pingStatus = 200;
const server = http.createServer((req, res) => {
  asked.push(`${req.method} ${req.url}`);
  if (req.url === "/_ping") return void res.writeHead(pingStatus).end(pingStatus === 200 ? "OK" : "busy");
  if (req.url === "/images/mcpbox-test/everything:latest/json") return void res.writeHead(200).end(JSON.stringify({ Id: "sha256:abc", Size: 1 }));
  if (req.url === "/images/noid:1/json") return void res.writeHead(200).end(JSON.stringify({ Size: 1 }));
  if (req.url === "/images/huge:1/json") return void res.writeHead(200).end(`{"Id":"sha256:abc","x":"${"x".repeat(9 << 20)}"}`);
  if (req.url === "/images/broken:1/json") return void res.writeHead(500).end('{"message":"engine trouble"}');
  res.writeHead(404).end('{"message":"No such image"}');
});
const saved = process.env.DOCKER_HOST;

beforeAll(async () => {
  process.env.DOCKER_HOST = `unix://${sock}`;
  await new Promise<void>((resolve) => server.listen(sock, resolve));
});
afterAll(async () => {
  if (saved === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = saved;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

const never = async (): Promise<never> => {
  throw new Error("dockerode was asked");
};

describe("the engine's socket without dockerode", () => {
  it("takes the socket of a unix:// or npipe:// engine only", () => {
    const found = (host: string) => ({ found: { host, kind: "env" as const, label: "DOCKER_HOST", from: "$DOCKER_HOST" }, looked: [] });
    expect(engineSocket(found("unix:///run/docker.sock"))).toBe("/run/docker.sock");
    expect(engineSocket(found("npipe:////./pipe/docker_engine"))).toBe("//./pipe/docker_engine");
    expect(engineSocket(found("unix://"))).toBeUndefined(); // docker-modem's default socket then: dockerode's way
    expect(engineSocket(found("tcp://10.0.0.1:2376"))).toBeUndefined();
    expect(engineSocket(found("ssh://me@host"))).toBeUndefined();
    expect(engineSocket({ looked: [] })).toBeUndefined();
  });

  it("pings on the socket; a refusal is the engine error", async () => {
    await pingEngineSocket(never);
    expect(asked).toContain("GET /_ping");
    pingStatus = 503;
    await expect(pingEngineSocket(never)).rejects.toThrow(/the Docker engine at unix:\/\/.* failed: \(HTTP code 503\) busy/);
    pingStatus = 200;
  });

  it("gives an image's id, undefined for a name the engine does not have, and rejects anything else", async () => {
    expect(await imageIdOf("mcpbox-test/everything:latest", never)).toBe("sha256:abc");
    expect(await imageIdOf("missing:1", never)).toBeUndefined();
    await expect(imageIdOf("noid:1", never)).rejects.toThrow(/has no id/);
    await expect(imageIdOf("broken:1", never)).rejects.toThrow(/HTTP code 500/);
    await expect(imageIdOf("huge:1", never)).rejects.toThrow(/larger than/);
  });

  it("hands a reference outside the reference grammar to dockerode instead of putting it in a path", async () => {
    const via: string[] = [];
    const dockerode = async (ref: string) => (via.push(ref), "sha256:viadockerode");
    for (const ref of ["a b:1", "x?all=1", "x#y", "../../containers/json", "%2e%2e"]) expect(await imageIdOf(ref, dockerode)).toBe("sha256:viadockerode");
    expect(via).toHaveLength(5);
    expect(asked.some((a) => /containers|\?all|%2e/.test(a))).toBe(false);
  });
});
