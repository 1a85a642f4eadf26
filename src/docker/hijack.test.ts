/**
 * hijackAttach over a TLS engine (DOCKER_HOST=tcp://...:2376 with DOCKER_TLS_VERIFY): node:https is loaded only on
 * that route (issue 15), so the route itself is proven here against a loopback engine stand-in that answers the
 * attach upgrade and echoes what it gets, with a certificate made for the test.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hijackAttach } from "./_hijack.ts";
import { withOwnAgent } from "./engine.ts";

let dir: string;
let server: https.Server;
let port: number;
let cert: string;
const requests: { method?: string; url?: string; upgrade?: string }[] = [];

/** A self-signed P-256 certificate of a day, made by openssl: its certificate PEM (the key is written to `<name>.key`). */
function selfSigned(name: string, subject: string, ...extra: string[]): { key: string; cert: string } {
  const [key, crt] = [path.join(dir, `${name}.key`), path.join(dir, `${name}.pem`)];
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", crt, "-days", "1", "-subj", subject, ...extra], { stdio: "ignore" });
  return { key: fs.readFileSync(key, "utf8"), cert: fs.readFileSync(crt, "utf8") };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcpbox-hijack-"));
  const engine = selfSigned("engine", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1");
  cert = engine.cert;
  server = https.createServer({ key: engine.key, cert });
  server.on("upgrade", (req, socket: net.Socket) => {
    requests.push({ method: req.method, url: req.url, upgrade: req.headers.upgrade });
    socket.write("HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n");
    socket.on("data", (d: Buffer) => socket.write(d));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("hijackAttach over TLS", () => {
  it("upgrades the attach request on the engine's TLS connection, trusting only the engine's CA", async () => {
    const docker = new Docker({ protocol: "https", host: "127.0.0.1", port, ca: cert, version: "v1.43" });
    const socket = await hijackAttach(docker, "abc/../x");
    try {
      expect(requests.at(-1)).toEqual({ method: "POST", url: "/v1.43/containers/abc%2F..%2Fx/attach?stream=1&stdin=1&stdout=1&stderr=1", upgrade: "tcp" });
      const echoed = new Promise<string>((r) => socket.once("data", (d: Buffer) => r(d.toString())));
      socket.write("ping\n");
      expect(await echoed).toBe("ping\n");
    } finally {
      socket.destroy();
    }
  });

  it("refuses an engine whose certificate the configured CA did not sign", async () => {
    const docker = new Docker({ protocol: "https", host: "127.0.0.1", port, ca: selfSigned("other", "/CN=other").cert });
    await expect(hijackAttach(docker, "abc")).rejects.toThrow(/self-signed|certificate/i);
  });

  it("does the same on mcpbox's own TLS agent (engine.ts withOwnAgent): upgrade, and the CA still checked", async () => {
    const docker = withOwnAgent(new Docker({ protocol: "https", host: "127.0.0.1", port, ca: cert, version: "v1.43" }));
    expect((docker.modem as unknown as { agent?: unknown }).agent).toBeDefined();
    const socket = await hijackAttach(docker, "abc");
    try {
      expect(requests.at(-1)).toMatchObject({ method: "POST", upgrade: "tcp" });
      const echoed = new Promise<string>((r) => socket.once("data", (d: Buffer) => r(d.toString())));
      socket.write("pong\n");
      expect(await echoed).toBe("pong\n");
    } finally {
      socket.destroy();
    }
    const other = withOwnAgent(new Docker({ protocol: "https", host: "127.0.0.1", port, ca: selfSigned("other2", "/CN=other").cert }));
    await expect(hijackAttach(other, "abc")).rejects.toThrow(/self-signed|certificate/i);
  });
});
