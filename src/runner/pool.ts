/**
 * Where run containers come from: a fresh one per run, or, with `pool: n`, one of n warm containers per language
 * already started and waiting for their request on stdin. A warm container serves exactly one run and is replaced
 * at once; nothing is ever reused. close() removes every container this pool still holds or runs.
 */
import type { Docker } from "../docker/engine.ts";
import type { RunContext } from "../docker/policy.ts";
import { startOneShot, type OneShot } from "../docker/run-once.ts";
import type { Language, ResolvedServer } from "../config/resolve.ts";
import { runContainerOptions } from "./container.ts";

interface Warm {
  shot: OneShot;
  dead: boolean;
}

export class RunnerPool {
  readonly #docker: Docker;
  readonly #server: ResolvedServer;
  readonly #ctx: RunContext;
  readonly #warm = new Map<Language, Warm[]>();
  /** every container started and not yet removed (warm or running) */
  readonly #live = new Set<OneShot>();
  readonly #starting = new Set<Promise<unknown>>();
  readonly #releasing = new Map<OneShot, Promise<void>>();
  #closed = false;

  constructor(docker: Docker, server: ResolvedServer, ctx: RunContext) {
    this.#docker = docker;
    this.#server = server;
    this.#ctx = ctx;
    for (const language of server.languages) {
      this.#warm.set(language, []);
      for (let i = 0; i < server.pool; i++) this.#refill(language);
    }
  }

  /** A started container for one run of `language`; the caller must release() it. */
  async take(language: Language): Promise<OneShot> {
    if (this.#closed) throw new Error("the code runner is shutting down");
    const ready = this.#warm.get(language) ?? [];
    let warm: Warm | undefined;
    while ((warm = ready.shift()) && warm.dead) this.release(warm.shot).catch(() => {});
    if (warm) {
      this.#refill(language);
      return warm.shot;
    }
    return this.#start(language);
  }

  /** Removes a container after its run (or when it is no longer wanted); once per container. */
  release(shot: OneShot): Promise<void> {
    let pending = this.#releasing.get(shot);
    if (!pending) {
      pending = shot.remove().finally(() => {
        this.#live.delete(shot);
        this.#releasing.delete(shot);
      });
      this.#releasing.set(shot, pending);
    }
    return pending;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#starting]);
    this.#warm.clear();
    await Promise.allSettled([...this.#live].map((s) => this.release(s)));
    await Promise.allSettled([...this.#releasing.values()]);
  }

  async #start(language: Language): Promise<OneShot> {
    const pending = startOneShot(this.#docker, runContainerOptions(this.#server, this.#ctx, language));
    this.#starting.add(pending);
    try {
      const shot = await pending;
      this.#live.add(shot);
      if (this.#closed) {
        await this.release(shot);
        throw new Error("the code runner is shutting down");
      }
      return shot;
    } finally {
      this.#starting.delete(pending);
    }
  }

  #refill(language: Language): void {
    if (this.#closed || this.#server.pool === 0) return;
    this.#start(language).then(
      (shot) => {
        const warm: Warm = { shot, dead: false };
        void shot.exited.then(() => (warm.dead = true));
        if (this.#closed) void this.release(shot);
        else this.#warm.get(language)?.push(warm);
      },
      () => {}, // an engine hiccup: the next take starts a container on demand
    );
  }
}
