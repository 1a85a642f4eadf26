/**
 * Host paths in a server's arguments become mounts: the folder or file is mounted at /data/<basename> and the
 * argument rewritten to that target, so the server sees the same data inside its container. Only what exists and
 * what validation accepts is mounted; anything else is a problem that keeps the server out of the config.
 */
import path from "node:path";
import { mountDanger } from "../../config/checks.ts";
import type { ImportEnv } from "./types.ts";

export interface MountSpec {
  source: string;
  target: string;
  readOnly?: boolean;
}

const HOST_PATH = /^(\/(?!\/)|~(\/|$)|[A-Za-z]:[\\/])/;

export const isHostPath = (s: string) => HOST_PATH.test(s);

export class MountSet {
  readonly mounts: MountSpec[] = [];
  readonly problems: string[] = [];
  private readonly env: ImportEnv;
  constructor(env: ImportEnv) {
    this.env = env;
  }

  /** Mounts `hostPath` (once) and returns its target, or undefined after recording why it cannot. */
  add(hostPath: string, target?: string, readOnly?: boolean): string | undefined {
    const source = this.expand(hostPath);
    const known = this.mounts.find((m) => m.source === source);
    if (known) return known.target;
    if (!this.env.exists(source)) {
      this.problems.push(`${hostPath} does not exist on this machine`);
      return undefined;
    }
    const danger = mountDanger(this.env.realpath(source), this.env.home);
    if (danger) {
      this.problems.push(`it would mount ${danger.what}, which mcpbox refuses without a dangerous.* opt-in`);
      return undefined;
    }
    const spec: MountSpec = { source, target: target ?? this.freeTarget(source) };
    if (readOnly === false) spec.readOnly = false;
    this.mounts.push(spec);
    return spec.target;
  }

  /** The arguments with every host path (alone or after `--flag=`) replaced by its mount target. */
  rewrite(args: readonly string[]): string[] {
    return args.map((arg) => {
      if (isHostPath(arg)) return this.add(arg) ?? arg;
      const m = /^(--?[^=\s]+=)(.+)$/.exec(arg);
      if (m && isHostPath(m[2]!)) return `${m[1]}${this.add(m[2]!) ?? m[2]}`;
      return arg;
    });
  }

  private expand(p: string): string {
    if (p === "~") return this.env.home;
    if (p.startsWith("~/")) return path.join(this.env.home, p.slice(2));
    return p.length > 1 ? p.replace(/[\\/]+$/, "") : p;
  }

  private freeTarget(source: string): string {
    const base = path.basename(source).replace(/[^A-Za-z0-9._-]+/g, "-") || "root";
    const taken = new Set(this.mounts.map((m) => m.target));
    let target = `/data/${base}`;
    for (let i = 2; taken.has(target); i++) target = `/data/${base}-${i}`;
    return target;
  }
}
