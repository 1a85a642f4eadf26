/**
 * The code runner's bound as a whole (pool.maxConcurrent, pool.maxQueued): at most that many runs hold a slot
 * (their container from start to removal), later ones wait in order, and one more than the queue holds is refused
 * at once with an error naming the keys. A waiter whose call is cancelled leaves the queue.
 */
export class QueueFull extends Error {}

export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  fail: (e: Error) => void;
}

export class RunSlots {
  readonly #max: number;
  readonly #maxQueued: number;
  readonly #describe: string;
  readonly #queue: Waiter[] = [];
  #busy = 0;
  #closed = false;

  /** `describe` names the keys in errors, e.g. "servers.code.pool" */
  constructor(max: number, maxQueued: number, describe = "pool") {
    this.#max = max;
    this.#maxQueued = maxQueued;
    this.#describe = describe;
  }

  get running(): number {
    return this.#busy;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Resolves with a release function once a slot is free; rejects with QueueFull when the queue is full. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (this.#closed) return Promise.reject(new Error("the code runner is shutting down"));
    if (this.#busy < this.#max) return Promise.resolve(this.#grant());
    if (this.#queue.length >= this.#maxQueued) {
      return Promise.reject(
        new QueueFull(
          `too many runs at once: ${this.#busy} running (${this.#describe}.maxConcurrent: ${this.#max}) and ${this.#queue.length} waiting ` +
            `(${this.#describe}.maxQueued: ${this.#maxQueued}); try again when one has finished, or raise ${this.#describe}.maxQueued`,
        ),
      );
    }
    if (signal?.aborted) return Promise.reject(new Error("cancelled while waiting for a free run slot"));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { grant: resolve, fail: reject };
      this.#queue.push(waiter);
      signal?.addEventListener(
        "abort",
        () => {
          const i = this.#queue.indexOf(waiter);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(new Error("cancelled while waiting for a free run slot"));
        },
        { once: true },
      );
    });
  }

  /** Refuses every waiter and every later acquire. */
  close(): void {
    this.#closed = true;
    for (const w of this.#queue.splice(0)) w.fail(new Error("the code runner is shutting down"));
  }

  #grant(): Release {
    this.#busy++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#busy--;
      const next = this.#queue.shift();
      if (next) next.grant(this.#grant());
    };
  }
}
