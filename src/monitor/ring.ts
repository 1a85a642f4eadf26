/** A fixed-size buffer that forgets its oldest items: what keeps the gateway's and the monitor's memory bounded. */
export class Ring<T> {
  readonly #items: T[] = [];
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  push(item: T): void {
    this.#items.push(item);
    if (this.#items.length > this.capacity) this.#items.shift();
  }

  /** Oldest first. */
  toArray(): T[] {
    return this.#items.slice();
  }

  get size(): number {
    return this.#items.length;
  }
}
