/**
 * Does a build's TLS to the npm registry verify? A short-lived container on the node base image, on the default
 * bridge network a build uses, fetches the registry with Node's own CAs (plus build.caCerts, mounted read-only and
 * handed over as NODE_EXTRA_CA_CERTS, as the template does). A proxy that re-signs TLS shows as a certificate error
 * code. For `mcpbox doctor`; the container is hardened otherwise, labelled as doctor's and always removed.
 */
import type Docker from "dockerode";
import { messageOf } from "../errors.ts";
import { createContainer } from "./create.ts";
import { engine } from "./engine.ts";
import { hardenedProbeOptions } from "./probe.ts";

export const REGISTRY_URL = "https://registry.npmjs.org/";
const CA_IN_CONTAINER = "/mcpbox-doctor/ca.crt";

export type TlsOutcome = { ok: true; status: number } | { ok: false; code: string; message: string };

/** Prints one JSON line: the HTTP status, or the error's code (SELF_SIGNED_CERT_IN_CHAIN, ENOTFOUND, ...). */
const SCRIPT = `
const say = (o) => { console.log(JSON.stringify(o)); process.exit(0); };
const req = require("node:https").get(${JSON.stringify(REGISTRY_URL)}, { timeout: 8000 }, (r) => say({ ok: true, status: r.statusCode }));
req.on("timeout", () => req.destroy(Object.assign(new Error("no answer within 8 s"), { code: "ETIMEDOUT" })));
req.on("error", (e) => say({ ok: false, code: String(e.code || "ERROR"), message: String(e.message) }));
`;

export async function probeRegistryTls(image: string, caCerts: string | undefined, docker: Docker = engine(), timeoutMs = 15_000): Promise<TlsOutcome> {
  const base = hardenedProbeOptions(image);
  // its one JSON line is read back with `logs` (not attached): the engine's default log driver, not a server's "none"
  const { LogConfig: _noLog, ...hostConfig } = base.HostConfig ?? {};
  const options: Docker.ContainerCreateOptions = {
    ...base,
    Entrypoint: ["node"],
    Cmd: ["-e", SCRIPT],
    Env: caCerts ? [`NODE_EXTRA_CA_CERTS=${CA_IN_CONTAINER}`] : [],
    OpenStdin: false,
    StdinOnce: false,
    AttachStdin: false,
    HostConfig: {
      ...hostConfig,
      NetworkMode: "bridge", // what a build's RUN steps get
      Binds: caCerts ? [`${caCerts}:${CA_IN_CONTAINER}:ro`] : [],
    },
  };
  const container = await createContainer(docker, options);
  try {
    await container.start();
    const exited = container.wait();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
    const done = await Promise.race([exited, late]).finally(() => clearTimeout(timer));
    if (done === "late") return { ok: false, code: "ETIMEDOUT", message: `the check did not finish within ${timeoutMs / 1000} s` };
    const logs = (await container.logs({ stdout: true, stderr: true })) as unknown as Buffer;
    return parseOutcome(demux(logs));
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
}

export function parseOutcome(output: string): TlsOutcome {
  const line = output.split("\n").reverse().find((l) => l.trim().startsWith("{"));
  try {
    const o = JSON.parse(line ?? "") as { ok?: unknown; status?: unknown; code?: unknown; message?: unknown };
    if (o.ok === true) return { ok: true, status: Number(o.status) };
    return { ok: false, code: String(o.code), message: String(o.message) };
  } catch (e) {
    return { ok: false, code: "NO_ANSWER", message: `the check printed no result (${messageOf(e)}): ${output.trim().slice(-200)}` };
  }
}

/** The engine's multiplexed log frames (8-byte header: stream, 0, 0, 0, big-endian length) as text. */
export function demux(buf: Buffer): string {
  let out = "";
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    out += buf.subarray(i + 8, i + 8 + size).toString("utf8");
    i += 8 + size;
  }
  return out;
}
