/** A fixed-size buffer that forgets its oldest items: what keeps the gateway's and the monitor's memory bounded. */
export class Ring<T> {
  readonly #items: T[] = [];
  #start = 0;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** Adds an item; returns the oldest one when it had to make room. */
  push(item: T): T | undefined {
    if (this.#items.length < this.capacity) {
      this.#items.push(item);
      return undefined;
    }
    const evicted = this.#items[this.#start];
    this.#items[this.#start] = item;
    this.#start = (this.#start + 1) % this.capacity;
    return evicted;
  }

  /** Oldest first. */
  toArray(): T[] {
    return this.#start === 0 ? this.#items.slice() : [...this.#items.slice(this.#start), ...this.#items.slice(0, this.#start)];
  }

  get size(): number {
    return this.#items.length;
  }
}
