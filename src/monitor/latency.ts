/** Call latency figures of one server over its recent calls. */
import { Ring } from "./ring.ts";

export const LATENCY_WINDOW = 500;

export class Latency {
  readonly #durations = new Ring<number>(LATENCY_WINDOW);
  #p50: number | undefined;
  #p95: number | undefined;

  add(durationMs: number): void {
    this.#durations.push(durationMs);
    const sorted = this.#durations.toArray().sort((a, b) => a - b);
    this.#p50 = percentile(sorted, 50);
    this.#p95 = percentile(sorted, 95);
  }

  get p50(): number | undefined {
    return this.#p50;
  }

  get p95(): number | undefined {
    return this.#p95;
  }
}

/** Nearest-rank percentile of sorted values; undefined when there are none. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
