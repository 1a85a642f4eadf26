/**
 * Resource figures of running containers for the monitor (SPEC 6): CPU % from two cumulative CPU samples, memory in
 * use against its limit, pids, and OOM kills. One-shot stats calls (no 1 s wait inside the engine); the previous sample
 * of each container is kept here so the CPU % covers the time between two polls.
 */
import type Dockerode from "dockerode";
import { engine, type Docker } from "./engine.ts";

export interface ContainerFigures {
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number;
  pids: number;
  oomKilled: boolean;
}

interface CpuSample {
  total: number;
  system: number;
  onlineCpus: number;
}

/** CPU % the docker CLI way: container time over host time, times the host's CPUs (100 % = one core busy). */
export function cpuPercent(prev: CpuSample | undefined, cur: CpuSample): number {
  if (!prev) return 0;
  const container = cur.total - prev.total;
  const system = cur.system - prev.system;
  if (container <= 0 || system <= 0) return 0;
  return (container / system) * Math.max(1, cur.onlineCpus) * 100;
}

/** Memory in use as `docker stats` shows it: the page cache that can be dropped is not counted. */
export function memoryInUse(m: Partial<Dockerode.MemoryStats> | undefined): number {
  if (!m?.usage) return 0;
  const s = (m.stats ?? {}) as Record<string, number | undefined>;
  const cache = s.total_inactive_file ?? s.inactive_file ?? 0;
  return Math.max(0, m.usage - (cache < m.usage ? cache : 0));
}

function cpuSampleOf(s: Dockerode.ContainerStats): CpuSample | undefined {
  const c = s.cpu_stats;
  if (!c?.cpu_usage || !c.system_cpu_usage) return undefined;
  return { total: c.cpu_usage.total_usage, system: c.system_cpu_usage, onlineCpus: c.online_cpus || c.cpu_usage.percpu_usage?.length || 1 };
}

export class StatsSampler {
  readonly #docker: Docker;
  readonly #previous = new Map<string, { cpu: CpuSample | undefined; failcnt: number; oom: boolean }>();

  constructor(docker: Docker = engine()) {
    this.#docker = docker;
  }

  /** Figures of one container; undefined when it is gone. */
  async sample(containerId: string): Promise<ContainerFigures | undefined> {
    const container = this.#docker.getContainer(containerId);
    let stats: Dockerode.ContainerStats;
    try {
      stats = await container.stats({ stream: false, "one-shot": true });
    } catch {
      this.#previous.delete(containerId);
      return undefined;
    }
    const prev = this.#previous.get(containerId);
    const cpu = cpuSampleOf(stats);
    const failcnt = stats.memory_stats?.failcnt ?? 0;
    const oomCount = (stats.memory_stats?.stats as Record<string, number> | undefined)?.oom_kill ?? 0;
    const stopped = !stats.pids_stats?.current;
    // the OOM flag lives on the container: ask only when the memory limit was hit or the container stopped
    let oom = prev?.oom ?? false;
    if (oomCount > 0) oom = true;
    else if (!oom && (failcnt > (prev?.failcnt ?? 0) || stopped)) oom = await this.#oomKilled(container);
    this.#previous.set(containerId, { cpu, failcnt, oom });
    return {
      cpuPercent: cpu ? cpuPercent(prev?.cpu ?? precpuOf(stats), cpu) : 0,
      memoryBytes: memoryInUse(stats.memory_stats),
      memoryLimitBytes: stats.memory_stats?.limit ?? 0,
      pids: stats.pids_stats?.current ?? 0,
      oomKilled: oom,
    };
  }

  /** Forgets containers that are no longer polled. */
  retain(containerIds: Iterable<string>): void {
    const keep = new Set(containerIds);
    for (const id of this.#previous.keys()) if (!keep.has(id)) this.#previous.delete(id);
  }

  async #oomKilled(container: Dockerode.Container): Promise<boolean> {
    try {
      return (await container.inspect()).State.OOMKilled === true;
    } catch {
      return false;
    }
  }
}

function precpuOf(s: Dockerode.ContainerStats): CpuSample | undefined {
  const p = s.precpu_stats;
  if (!p?.cpu_usage || !p.system_cpu_usage) return undefined;
  return { total: p.cpu_usage.total_usage, system: p.system_cpu_usage, onlineCpus: p.online_cpus || 1 };
}

export interface SessionContainer {
  id: string;
  session: string;
  server: string;
  state: string;
  status: string;
  image: string;
  ownerPid: number | undefined;
}

/** Containers mcpbox started (label mcpbox.managed=true), optionally of one session. */
export async function listSessionContainers(session?: string, docker: Docker = engine()): Promise<SessionContainer[]> {
  const label = ["mcpbox.managed=true", ...(session ? [`mcpbox.session=${session}`] : [])];
  const list = await docker.listContainers({ all: true, filters: { label } });
  return list.map((c) => ({
    id: c.Id.slice(0, 12),
    session: c.Labels["mcpbox.session"] ?? "",
    server: c.Labels["mcpbox.server"] ?? "",
    state: c.State,
    status: c.Status,
    image: c.Image,
    ownerPid: Number(c.Labels["mcpbox.owner-pid"]) || undefined,
  }));
}
