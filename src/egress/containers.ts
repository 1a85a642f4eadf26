/**
 * The engine settings of a server's egress containers (pure). Both are hardened like a server: uid 1000, read-only
 * root, no capabilities, no-new-privileges, an init, memory/cpu/pids limits, a noexec /tmp (the binary unpacks its
 * code there). The forwarder owns the server's network namespace ("none": loopback only); the server joins it with
 * NetworkMode `container:<forwarder id>`, so the forwarder listens before the server starts and outlives its restarts.
 */
import type Dockerode from "dockerode";
import { SETTINGS_ENV, SOCKET_DIR, forwardHosts, type ForwarderSettings, type ProxySettings } from "./settings.ts";

export const ROLE_LABEL = "mcpbox.egress";
const MEMORY = 192 * 1024 * 1024; // Node plus its unpacked code on the tmpfs, measured ~60 MB each
const TMPFS = "rw,noexec,nosuid,nodev,size=48m,mode=1777";

export interface EgressContainerOptions {
  image: string;
  name: string;
  labels: Readonly<Record<string, string>>;
  volume: string;
}

function hardened(o: EgressContainerOptions, role: "proxy" | "forward", settings: ProxySettings | ForwarderSettings): Dockerode.ContainerCreateOptions {
  return {
    name: `${o.name}-${role}`,
    Image: o.image,
    User: "1000:1000",
    Env: [`${SETTINGS_ENV}=${JSON.stringify(settings)}`, "MCPBOX_HOME=/tmp/mcpbox", "HOME=/tmp"],
    Labels: { ...o.labels, [ROLE_LABEL]: role },
    AttachStdin: false,
    Tty: false,
    HostConfig: {
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      Init: true,
      Memory: MEMORY,
      MemorySwap: MEMORY,
      NanoCpus: 1e9,
      PidsLimit: 64,
      Tmpfs: { "/tmp": TMPFS },
      Mounts: [{ Type: "volume", Source: o.volume, Target: SOCKET_DIR }],
      // their output is read on the attach stream (launch.ts): no engine log file of the proxy's records on the host
      LogConfig: { Type: "none", Config: {} },
    },
  };
}

/** The proxy: on a network with a way out (its own), the only one of the two that has one. */
export function proxyContainer(o: EgressContainerOptions & { network: string; extraHosts?: readonly string[] }, settings: ProxySettings): Dockerode.ContainerCreateOptions {
  const c = hardened(o, "proxy", settings);
  return { ...c, HostConfig: { ...c.HostConfig, NetworkMode: o.network, ...(o.extraHosts?.length ? { ExtraHosts: [...o.extraHosts] } : {}) } };
}

/** The forwarder: no network but loopback; /etc/hosts (shared with the server) maps each `host:port` name to its listener. */
export function forwarderContainer(o: EgressContainerOptions, settings: ForwarderSettings): Dockerode.ContainerCreateOptions {
  const c = hardened(o, "forward", settings);
  return {
    ...c,
    HostConfig: {
      ...c.HostConfig,
      NetworkMode: "none",
      ExtraHosts: forwardHosts(settings),
      // a forward keeps the port the server knows (443, 5432) without a capability; namespaced to this netns only
      Sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" },
    },
  };
}
