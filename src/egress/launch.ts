/**
 * Starts one server's egress (the seam the gateway's launcher calls before it creates the server's container):
 * a volume for the proxy's socket, the proxy's own network (no traffic between containers), the proxy, and the
 * forwarder that owns the server's network namespace. Resolves when both answer "ready"; records then flow to
 * onRecord. stop() removes all of it; every object carries the labels it was given (SPEC 4.6), for the sweep.
 */
import os from "node:os";
import { PassThrough } from "node:stream";
import { createContainer } from "../docker/create.ts";
import type { Docker } from "../docker/engine.ts";
import { LineSplitter } from "../docker/line-splitter.ts";
import { McpboxError, messageOf } from "../errors.ts";
import { forwarderContainer, proxyContainer } from "./containers.ts";
import { parseRecord, type EgressRecord } from "./record.ts";
import { forwarderSettings, serverProxyEnv, socketPath } from "./settings.ts";

const READY_MS = 15_000;
const STOP_SECONDS = 1;

export interface EgressOptions {
  docker: Docker;
  image: string;
  server: string;
  allow: readonly string[];
  /** the server's SPEC 4.6 labels (session, server, owner pid, config hash, owner host) */
  labels: Readonly<Record<string, string>>;
  /** a unique stem for the names of the containers, network and volume, e.g. `mcpbox-<session>-<server>` */
  name: string;
  onRecord: (r: EgressRecord) => void;
  /** tests: attach the proxy to these networks instead of a network of its own */
  networks?: readonly string[];
  /** tests through serve: networks the proxy joins besides its own (where the test's hosts live) */
  extraNetworks?: readonly string[];
  /** tests: `name:address` lines for the proxy's /etc/hosts */
  proxyHosts?: readonly string[];
}

export interface RunningEgress {
  readonly proxyId: string;
  readonly forwarderId: string;
  /** the server container's HostConfig.NetworkMode */
  readonly networkMode: `container:${string}`;
  /** what the server's environment gets (SPEC 10) */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export async function startEgress(o: EgressOptions): Promise<RunningEgress> {
  // removed in this order: the containers, then what they use (networks, then the volume)
  const containers: Array<() => Promise<unknown>> = [];
  const used: Array<() => Promise<unknown>> = [];
  const undo = async () => {
    await Promise.all(containers.map((remove) => remove().catch(() => {})));
    for (const remove of used.reverse()) await remove().catch(() => {});
  };
  try {
    const volume = `${o.name}-egress`;
    await o.docker.createVolume({ Name: volume, Labels: { ...o.labels } });
    used.push(() => o.docker.getVolume(volume).remove());
    const base = { image: o.image, name: o.name, labels: o.labels, volume };
    // the forwarder needs no network: it starts while the proxy's network is made (it waits for the proxy to take
    // its listeners), which is most of an egress's start
    const forwarding = (async () => {
      const forwarder = await createContainer(o.docker, forwarderContainer(base, forwarderSettings(o.server, o.allow)));
      containers.push(() => forwarder.remove({ force: true }));
      const said = await output(o.docker, forwarder.id);
      await forwarder.start();
      await follow(o.docker, said, () => {});
      return forwarder;
    })();
    const proxying = (async () => {
      const networks = o.networks ?? [await ownNetwork(o, used), ...(o.extraNetworks ?? [])];
      // the host answers on its networks' gateways and on its own addresses: refused behind names as private ones are
      const gateways = [...(await Promise.all(networks.map((n) => gatewaysOf(o.docker, n)))).flat(), ...hostAddresses()];
      const proxy = await createContainer(o.docker, proxyContainer(
        { ...base, network: networks[0]!, ...(o.proxyHosts ? { extraHosts: o.proxyHosts } : {}) },
        { role: "proxy", listeners: [{ server: o.server, socket: socketPath(o.server), allow: [...o.allow] }], gateways },
      ));
      containers.push(() => proxy.remove({ force: true }));
      for (const n of networks.slice(1)) await o.docker.getNetwork(n).connect({ Container: proxy.id });
      const said = await output(o.docker, proxy.id);
      await proxy.start();
      await follow(o.docker, said, o.onRecord);
      return proxy;
    })();
    const settled = await Promise.allSettled([forwarding, proxying]);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    const [forwarder, proxy] = [await forwarding, await proxying];
    return {
      proxyId: proxy.id,
      forwarderId: forwarder.id,
      networkMode: `container:${forwarder.id}`,
      env: serverProxyEnv(),
      stop: async () => {
        await Promise.all([proxy.stop({ t: STOP_SECONDS }).catch(() => {}), forwarder.stop({ t: STOP_SECONDS }).catch(() => {})]);
        await undo();
      },
    };
  } catch (e) {
    await undo();
    if (e instanceof McpboxError) throw e;
    throw new McpboxError("failed", `server "${o.server}": its egress proxy did not start: ${messageOf(e)}`, {
      hint: "run `mcpbox doctor` to check the engine",
      cause: e,
    });
  }
}

async function ownNetwork(o: EgressOptions, created: Array<() => Promise<unknown>>): Promise<string> {
  const name = `${o.name}-egress`;
  await o.docker.createNetwork({
    Name: name,
    Driver: "bridge",
    Labels: { ...o.labels },
    Options: { "com.docker.network.bridge.enable_icc": "false" },
  });
  created.push(() => o.docker.getNetwork(name).remove());
  return name;
}

/** This machine's own addresses (the engine's host when it is local, as usual). */
function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.split("%")[0]!));
}

/** The gateway addresses of a network: where the host's own services answer. */
async function gatewaysOf(docker: Docker, network: string): Promise<string[]> {
  const info = (await docker.getNetwork(network).inspect()) as { IPAM?: { Config?: Array<{ Gateway?: string }> } };
  return (info.IPAM?.Config ?? []).flatMap((c) => (c.Gateway ? [c.Gateway.split("/")[0]!] : []));
}

/**
 * A container's stdout and stderr from its first byte: attached before it starts. The engine keeps no log of them
 * (containers.ts): the proxy writes a record per connection, which a server making denied requests in a loop (one
 * pipelined connection holds thousands) turned into an engine log file growing on the host's disk without bound.
 */
async function output(docker: Docker, id: string): Promise<NodeJS.ReadableStream> {
  return (await docker.getContainer(id).attach({ stream: true, stdout: true, stderr: true })) as NodeJS.ReadableStream;
}

/** Follows a container's attached output: resolves at its "ready" line; each later record goes to onRecord. */
async function follow(docker: Docker, stream: NodeJS.ReadableStream, onRecord: (r: EgressRecord) => void): Promise<void> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  docker.modem.demuxStream(stream, stdout, stderr);
  let said = "";
  stderr.on("data", (d: Buffer) => (said = (said + d.toString()).slice(-2000)));
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "ready" within ${READY_MS / 1000} s${said ? `: ${said.trim()}` : ""}`)), READY_MS);
    const ready = () => (clearTimeout(timer), resolve());
    const splitter = new LineSplitter(8192, {
      line: (bytes) => {
        const text = bytes.toString("utf8");
        if (text.startsWith('{"type":"ready"')) return ready();
        const r = parseRecord(text);
        if (r) onRecord(r);
      },
      oversize: () => {},
    });
    stdout.on("data", (d: Buffer) => splitter.push(d));
    stream.on("end", () => {
      clearTimeout(timer);
      reject(new Error(`the container exited${said ? `: ${said.trim()}` : ""}`));
    });
  });
}
