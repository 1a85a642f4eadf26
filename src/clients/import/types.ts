/** What converting one client entry produces: a sandbox server (plus notes for the reader), or a reason it was not. */

/** A server object as written in sandbox.config.ts. */
export type ServerObject = Record<string, unknown>;

export interface Converted {
  kind: "converted";
  name: string;
  server: ServerObject;
  /** one-line comments written above the server */
  notes: string[];
}

export interface Skipped {
  kind: "skipped";
  name: string;
  reason: string;
  /** the original command line with anything secret-looking redacted */
  shown: string;
}

export type Conversion = Converted | Skipped;

export interface ImportEnv {
  home: string;
  exists: (p: string) => boolean;
  realpath: (p: string) => string;
}
