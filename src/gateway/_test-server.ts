/** A resolved server for the gateway's host tests: the defaults of resolve.ts, sampling allowed, `extra` over them. */
import type { ResolvedServer } from "../config/resolve.ts";

export function testServer(name: string, extra: Partial<ResolvedServer> = {}): ResolvedServer {
  return {
    name,
    source: { kind: "image", image: "x" },
    command: undefined,
    args: [],
    env: {},
    secrets: {},
    mounts: [],
    network: "none",
    limits: { memory: "512m", memoryBytes: 512 * 1024 * 1024, cpus: 1, pids: 256, tmpfs: "64m", tmpfsBytes: 64 << 20 },
    user: "1000:1000",
    readOnlyRoot: true,
    tools: { allow: undefined, deny: [] },
    approve: [],
    timeouts: { startupMs: 20_000, callMs: 20_000, runMs: 30_000 },
    prefix: name,
    startup: "eager",
    restart: "on-failure",
    pathArguments: [],
    dangerous: { allowRoot: false, allowHostNetwork: false, allowDockerSocket: false, allowSensitiveMounts: false, allowWritableConfig: false },
    clientRequests: { sampling: true, elicitation: true, roots: true },
    languages: [],
    maxOutputBytes: 1 << 20,
    pool: { warm: 0, maxConcurrent: 4, maxQueued: 16 },
    ...extra,
  } as ResolvedServer;
}
