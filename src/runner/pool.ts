/**
 * Where run containers come from: a fresh one per run, or, with `pool: n`, one of n warm containers per language
 * already started, connected and waiting for their request on stdin. A warm container serves exactly one run and is
 * replaced when that run is over; nothing is ever reused. close() removes every container this pool still holds or runs.
 */
import type { Docker } from "../docker/engine.ts";
import type { RunContext } from "../policy/run.ts";
import { startOneShot, type OneShot } from "../docker/run-once.ts";
import { runtimeCreateError } from "../docker/runtimes.ts";
import type { Language, ResolvedServer } from "../config/resolve.ts";
import { runContainerOptions } from "./container.ts";
import { prepare, whenReady, type Prepared } from "./prepare.ts";

interface Warm {
  prepared: Prepared;
  dead: boolean;
}

/** Containers whose output streams did not connect are replaced; this many tries per run. */
const ATTEMPTS = 3;

export class RunnerPool {
  readonly #docker: Docker;
  readonly #server: ResolvedServer;
  readonly #ctx: RunContext;
  readonly #warm = new Map<Language, Warm[]>();
  /** every container started and not yet removed (warm or running) */
  readonly #live = new Set<OneShot>();
  readonly #starting = new Set<Promise<unknown>>();
  readonly #releasing = new Map<OneShot, Promise<void>>();
  /** warm containers taken for a run: each is replaced once its run is over, so starting its successor (CPU-heavy
   * on the engine's side) does not slow the run down */
  readonly #replaceAfter = new Map<OneShot, Language>();
  #closed = false;

  constructor(docker: Docker, server: ResolvedServer, ctx: RunContext) {
    this.#docker = docker;
    this.#server = server;
    this.#ctx = ctx;
    for (const language of server.languages) {
      this.#warm.set(language, []);
      for (let i = 0; i < server.pool.warm; i++) this.#refill(language);
    }
  }

  /** A started, connected container for one run of `language`; the caller must release() its shot. */
  async take(language: Language): Promise<Prepared> {
    if (this.#closed) throw new Error("the code runner is shutting down");
    const ready = this.#warm.get(language) ?? [];
    let warm: Warm | undefined;
    while ((warm = ready.shift()) && warm.dead) this.release(warm.prepared.shot).catch(() => {});
    if (warm) {
      this.#replaceAfter.set(warm.prepared.shot, language);
      return warm.prepared;
    }
    return this.#startReady(language);
  }

  /** Removes a container after its run (or when it is no longer wanted); once per container. */
  release(shot: OneShot): Promise<void> {
    const language = this.#replaceAfter.get(shot);
    if (language !== undefined) {
      this.#replaceAfter.delete(shot);
      this.#refill(language);
    }
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

  /** Starts containers until one's output streams are connected (ATTEMPTS at most). */
  async #startReady(language: Language): Promise<Prepared> {
    for (let attempt = 1; ; attempt++) {
      const prepared = await this.#start(language);
      if (await whenReady(prepared, this.#server.timeouts.startupMs)) return prepared;
      await this.release(prepared.shot).catch(() => {});
      if (this.#closed) throw new Error("the code runner is shutting down");
      if (attempt === ATTEMPTS) throw new Error(`no run container came up in ${ATTEMPTS} tries (its output did not connect)`);
    }
  }

  async #start(language: Language): Promise<Prepared> {
    const pending = startOneShot(this.#docker, runContainerOptions(this.#server, this.#ctx, language))
      .catch((e: unknown) => Promise.reject(runtimeCreateError(this.#server, e))); // an engine with no runsc: the clear error
    this.#starting.add(pending);
    try {
      const shot = await pending;
      this.#live.add(shot);
      if (this.#closed) {
        await this.release(shot);
        throw new Error("the code runner is shutting down");
      }
      return prepare(shot, this.#server.maxOutputBytes);
    } finally {
      this.#starting.delete(pending);
    }
  }

  #refill(language: Language): void {
    if (this.#closed || this.#server.pool.warm === 0) return;
    const pending = this.#startReady(language);
    this.#starting.add(pending);
    pending.then(
      (prepared) => {
        const warm: Warm = { prepared, dead: false };
        void prepared.shot.exited.then(() => (warm.dead = true));
        if (this.#closed) void this.release(prepared.shot);
        else this.#warm.get(language)?.push(warm);
      },
      () => {}, // an engine hiccup: the next take starts a container on demand
    ).finally(() => this.#starting.delete(pending));
  }
}
