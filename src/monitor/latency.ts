/**
 * Call latency figures of one server over its recent calls. A sorted copy of the window is kept up to date per call
 * (binary search, one insert, one removal) so p50/p95 cost nothing to read, however busy the gateway.
 */
import { Ring } from "./ring.ts";

export const LATENCY_WINDOW = 500;

export class Latency {
  readonly #window = new Ring<number>(LATENCY_WINDOW);
  readonly #sorted: number[] = [];

  add(durationMs: number): void {
    const evicted = this.#window.push(durationMs);
    if (evicted !== undefined) this.#sorted.splice(lowerBound(this.#sorted, evicted), 1);
    this.#sorted.splice(lowerBound(this.#sorted, durationMs), 0, durationMs);
  }

  get p50(): number | undefined {
    return percentile(this.#sorted, 50);
  }

  get p95(): number | undefined {
    return percentile(this.#sorted, 95);
  }
}

/** The first index whose value is not below `value`. */
function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Nearest-rank percentile of sorted values; undefined when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
