/**
 * A server that cannot start is told once (SPEC 4.2): one line on stderr, one error log message to the client (once
 * it has initialized) and a line in the initialize instructions; the same failure again at a retry says nothing new.
 */
import { isMcpboxError, messageOf } from "../errors.ts";
import { isRpcShaped, wireMessage } from "./rpc-error.ts";

/** One line for a failure: the message and, when the error carries one, the fix. */
export function failureText(e: unknown): string {
  const message = isRpcShaped(e) ? wireMessage(e) : messageOf(e);
  return isMcpboxError(e) && e.hint ? `${message}; fix: ${e.hint}` : message;
}

/** What the client reads about a server that is down. */
export const unavailableLine = (server: string, why: string): string => `server ${server} is not available: ${why}`;

export interface FailureSinks {
  stderr(line: string): void;
  /** the client's log (the owner sends only once the client has initialized) */
  client(line: string): void;
}

export class FailureReports {
  /** server → the failure told, while it is down */
  readonly #told = new Map<string, string>();
  readonly #sinks: FailureSinks;

  constructor(sinks: FailureSinks) {
    this.#sinks = sinks;
  }

  /** Tells a failure unless this very one was told since the server last ran; `next` says what happens now. */
  report(server: string, why: string, next = ""): void {
    if (this.#told.get(server) === why) return;
    this.#told.set(server, why);
    this.#sinks.stderr(`${server}: failed: ${why}${next ? ` (${next})` : ""}`);
    this.#sinks.client(unavailableLine(server, why));
  }

  /** The server runs again: a later failure is news. */
  recovered(server: string): void {
    this.#told.delete(server);
  }

  told(server: string): boolean {
    return this.#told.has(server);
  }

  /** The client lines of every server down now, in the order they failed. */
  lines(): string[] {
    return [...this.#told].map(([server, why]) => unavailableLine(server, why));
  }
}
