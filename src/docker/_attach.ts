/**
 * The two engine calls that must be in place before a container starts (ENVIRONMENT, measured): a hijacked attach of
 * stdin, stdout and stderr, and a wait on the next exit whose response headers prove the engine registered it.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import { hijackAttach } from "./_hijack.ts";

export interface AttachedStdio {
  /** the hijacked connection: writes go to the container's stdin */
  stdin: Duplex;
  stdout: PassThrough;
  stderr: PassThrough;
}

/** Attach with hijack, before start: stdin, stdout and stderr over one upgraded connection. */
export async function attachStdio(docker: Docker, id: string): Promise<AttachedStdio> {
  const stream = await hijackAttach(docker, id);
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
