/**
 * The two engine calls that must be in place before a container starts (ENVIRONMENT, measured): a hijacked attach of
 * stdin, stdout and stderr, and a wait on the next exit whose response headers prove the engine registered it.
 */
import http, { type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";

export interface AttachedStdio {
  /** the hijacked connection: writes go to the container's stdin */
  stdin: Duplex;
  stdout: PassThrough;
  stderr: PassThrough;
}

/** Attach with hijack, before start: stdin, stdout and stderr over one upgraded connection. */
export async function attachStdio(docker: Docker, id: string): Promise<AttachedStdio> {
  const socketPath = await unixSocketOf(docker);
  const stream = socketPath ? await hijackOverSocket(socketPath, apiPrefix(docker), id) : await hijackWithModem(docker, id);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  docker.modem.demuxStream(stream, stdout, stderr);
  // demuxStream does not forward the end of the stream
  const endBoth = () => {
    stdout.end();
    stderr.end();
  };
  stream.once("end", endBoth);
  stream.once("close", endBoth);
  stream.on("error", endBoth);
  return { stdin: stream, stdout, stderr };
}

type ModemInternals = { socketPath?: unknown; version?: string; getSocketPath(): Promise<string | undefined> };

async function unixSocketOf(docker: Docker): Promise<string | undefined> {
  const modem = docker.modem as unknown as ModemInternals;
  return modem.socketPath ? await modem.getSocketPath() : undefined;
}

function apiPrefix(docker: Docker): string {
  const version = (docker.modem as unknown as ModemInternals).version;
  return version ? `/${version}` : "";
}

/**
 * A bodiless upgrade request. docker-modem always sends its options as a JSON body (Podman hands that body to the
 * container's stdin) and, without one, never flushes the request headers.
 */
function hijackOverSocket(socketPath: string, prefix: string, id: string): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      socketPath,
      method: "POST",
      path: `${prefix}/containers/${encodeURIComponent(id)}/attach?stream=1&stdin=1&stdout=1&stderr=1`,
      headers: { Connection: "Upgrade", Upgrade: "tcp", "Content-Length": "0" },
    });
    req.once("upgrade", (_res, socket, head) => {
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const message = (JSON.parse(text || "{}") as { message?: string }).message ?? text;
        reject(Object.assign(new Error(`attach failed (HTTP ${res.statusCode}): ${message}`), { statusCode: res.statusCode }));
      });
    });
    req.once("error", reject);
    req.end();
  });
}

/** Engines reached over TCP, TLS or SSH: dockerode's own attach (its JSON body is harmless with Docker). */
async function hijackWithModem(docker: Docker, id: string): Promise<Duplex> {
  const opts = { stream: true, stdin: true, stdout: true, stderr: true, hijack: true };
  return (await docker.getContainer(id).attach(opts)) as unknown as Duplex;
}

export interface WaitResult {
  StatusCode: number;
  Error?: { Message?: string } | null;
}

/**
 * Registers a wait for the container's next exit. Resolves once the engine answered with headers (so the wait is in
 * place before start); the inner promise resolves with the exit status.
 */
export function registerWait(docker: Docker, id: string): Promise<{ result: Promise<WaitResult> }> {
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      {
        path: `/containers/${id}/wait?`,
        method: "POST",
        isStream: true,
        options: { _query: { condition: "next-exit" }, _body: {} },
        statusCodes: { 200: true, 404: "no such container", 500: "server error" },
      },
      (err: unknown, res: unknown) => (err ? reject(err) : resolve({ result: readJson(res as IncomingMessage) })),
    );
  });
}

function readJson(res: IncomingMessage): Promise<WaitResult> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("error", reject);
    res.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as WaitResult);
      } catch (e) {
        reject(e);
      }
    });
  });
}
