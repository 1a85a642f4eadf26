/**
 * What one server may cost the gateway (SPEC 4.3, issue 11 boundary 5): caps on what it lists, on the requests it
 * keeps pending at the client, and on the notifications it sends. Exceeding a cap fails that server's list, refuses
 * that request or drops those notifications, with a message naming the cap. Pure.
 */

export const CAPS = {
  /** items of one kind (tools, prompts, resources, templates) one server may list */
  listItems: 5000,
  /** resource templates one server may list (each URI a client reads is matched against every one) */
  listTemplates: 100,
  /** pages of one list */
  listPages: 100,
  /** bytes of everything one server lists */
  listBytes: 8 * 1024 * 1024,
  /** requests (sampling, elicitation, roots) one server may have waiting on the client */
  pendingClientRequests: 16,
  /** notifications per second one server may send the client, sustained; and the burst above it */
  notificationsPerSecond: 500,
  notificationBurst: 2000,
  /** bytes queued to the client above which notifications are dropped (answers never are) */
  clientQueueBytes: 8 * 1024 * 1024,
  /** a server's list_changed is acted on at most this often */
  relistIntervalMs: 1000,
} as const;

/** A token bucket: `take()` is false once more than `burst` were taken faster than `perSecond`. */
export class TokenBucket {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;
  /** how many were refused since the last `drained()` */
  #refused = 0;

  constructor(perSecond: number, burst: number, now: () => number = Date.now) {
    this.#perSecond = perSecond;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#at = now();
  }

  /** `cost` tokens at once (bytes, for a bucket of bytes), or none */
  take(cost = 1): boolean {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#at) * this.#perSecond) / 1000);
    this.#at = now;
    if (this.#tokens >= cost) {
      this.#tokens -= cost;
      return true;
    }
    this.#refused++;
    return false;
  }

  /** The refusals counted since the last call (for one summary line instead of one per drop). */
  drained(): number {
    const n = this.#refused;
    this.#refused = 0;
    return n;
  }
}

export const capMessage = {
  listItems: (server: string, kind: string, cap: number = CAPS.listItems) =>
    `server ${server} lists more than ${cap} ${kind} (mcpbox's cap on list items); it is not served`,
  listPages: (server: string, kind: string) =>
    `server ${server} lists ${kind} over more than ${CAPS.listPages} pages (mcpbox's cap on list pages); it is not served`,
  listBytes: (server: string) =>
    `server ${server} lists more than ${CAPS.listBytes / (1024 * 1024)} MiB (mcpbox's cap on list bytes); it is not served`,
  pending: (server: string) =>
    `server ${server} already has ${CAPS.pendingClientRequests} requests pending at the client (mcpbox's cap); this one is refused`,
  notifications: (server: string, dropped: number) =>
    `server ${server} sent more than ${CAPS.notificationsPerSecond} notifications a second (mcpbox's cap); ${dropped} dropped`,
};
