/**
 * `network: "bridge"` through the gateway (SPEC 2.2): full egress, but on a bridge network of that server's own per
 * session, with traffic between containers off, so one bridge server cannot reach another (or anything else mcpbox
 * runs). It carries the session's labels (4.6): removeSession, the reaper and the start-up sweep remove it after its
 * containers. The host's own services stay reachable through the network's gateway (validate says so).
 */
import type Dockerode from "dockerode";
import type { ResolvedServer } from "../config/resolve.ts";
import { containerName } from "../policy/run.ts";

/** True for the servers that get a network of their own: `"bridge"` only (`{ network }` names one the user made). */
export function wantsOwnNetwork(server: ResolvedServer): boolean {
  return server.network === "bridge" && !server.egress;
}

export function serverNetworkName(session: string, server: string): string {
  return `${containerName(session, server)}-net`;
}

/** Pure: the create options of a server's own network. */
export function serverNetworkOptions(name: string, labels: Readonly<Record<string, string>>): Dockerode.NetworkCreateOptions {
  return {
    Name: name,
    Driver: "bridge",
    Labels: { ...labels },
    // the default bridge lets every container talk to every other: here a container reaches only the gateway/out
    Options: { "com.docker.network.bridge.enable_icc": "false" },
  };
}

/** Creates the network unless it exists (a restart of the same server in this session reuses it); returns its name. */
export async function ensureServerNetwork(docker: Dockerode, name: string, labels: Readonly<Record<string, string>>): Promise<string> {
  const existing = await docker.getNetwork(name).inspect().then(() => true, () => false);
  if (!existing) {
    await docker.createNetwork(serverNetworkOptions(name, labels)).catch(async (e: unknown) => {
      // two launches racing for it: the other one made it
      if (!(await docker.getNetwork(name).inspect().then(() => true, () => false))) throw e;
    });
  }
  return name;
}
