/**
 * One error type for everything the user can act on. The CLI entry point alone turns it into text and an exit code;
 * anything that is not an McpboxError is a bug (exit 70).
 */
export type ErrorKind =
  | "config" // the user's configuration is wrong (exit 1)
  | "failed" // an operation failed: build, server, call (exit 1)
  | "usage" // unknown flag or command, bad arguments (exit 2)
  | "environment"; // no Docker engine, no permission on the socket (exit 3)

export const EXIT = { ok: 0, failed: 1, usage: 2, environment: 3, internal: 70 } as const;

export interface McpboxErrorOptions {
  hint?: string;
  cause?: unknown;
  /** extra lines printed under the message, e.g. every config problem */
  details?: readonly string[];
}

export class McpboxError extends Error {
  readonly kind: ErrorKind;
  readonly hint: string | undefined;
  readonly details: readonly string[];

  constructor(kind: ErrorKind, message: string, options: McpboxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "McpboxError";
    this.kind = kind;
    this.hint = options.hint;
    this.details = options.details ?? [];
  }

  get exitCode(): number {
    switch (this.kind) {
      case "usage":
        return EXIT.usage;
      case "environment":
        return EXIT.environment;
      default:
        return EXIT.failed;
    }
  }
}

export const isMcpboxError = (e: unknown): e is McpboxError => e instanceof McpboxError;

/** Turns an unknown thrown value into a message line, without a stack. */
export function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
