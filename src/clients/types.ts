/**
 * What every MCP client descriptor says about itself: where its config lives, which format it is in, where the
 * servers sit inside it, and how one stdio server entry looks there. Descriptors are data plus one pure function.
 */

import type { ClientLocation } from "../locations/clients.ts";

export type ConfigFormat = "json" | "jsonc" | "yaml" | "toml";

export type { OsName, PlatformDirs } from "../locations/dirs.ts";
export type { ClientLocation, SiblingFile } from "../locations/clients.ts";

/**
 * One stdio server as mcpbox wants it started. `env` maps a variable the child must see to the host variable its
 * value comes from (names only: a value never reaches a client file).
 */
export interface StdioEntry {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** `serve --http` as a client reaches it: the URL, and the host variable that holds the bearer token. */
export interface HttpEntry {
  name: string;
  url: string;
  tokenVar: string;
}

/** Where the servers sit in the document: an object keyed by name, or (Continue) a list of objects with `name`. */
export interface ServersAt {
  path: string[];
  shape: "map" | "list";
}

/** A client's format; where its files live comes from the location table (`src/locations/clients.ts`). */
export interface ClientDescriptor extends ClientLocation {
  name: string;
  title: string;
  /** the documentation this descriptor follows */
  docs: string;
  format: ConfigFormat;
  servers: ServersAt;
  /**
   * How the client writes "the value of host variable NAME" in an env map, when it expands references.
   * Without it, secrets reach docker only through the client's own environment (`-e NAME`).
   */
  envRef?: (hostVar: string) => string;
  /**
   * What the client reads as a reference in a string it starts a server with (`${env:NAME}`, `{file:path}`) and
   * replaces with the host's variable or file before it starts it. mcpbox's command and arguments (a config path, a
   * direct entry's `-e NAME=value`, mounts and the server's own arguments, all from sandbox.config.ts) must not hold
   * one: the client would hand the host's secrets to the container. None of these clients has an escape for it.
   */
  expands?: RegExp;
  /** what a new file starts with besides the servers (e.g. Continue's required name/version/schema) */
  skeleton?: Record<string, unknown>;
  /** "minimal": the client starts servers with only a few variables (HOME, PATH...) plus its env map */
  serverEnv?: "inherited" | "minimal";
  /** The entry in the client's own shape. */
  render: (entry: StdioEntry) => Record<string, unknown>;
  /**
   * The URL entry of `serve --http` in the client's own shape, the token only as a reference to a variable
   * (`--mode http`). Absent: the client cannot take a header from a variable or a prompt, so it gets no URL entry.
   */
  renderHttp?: (entry: HttpEntry) => Record<string, unknown>;
  /** Reads one entry of this client's shape back (for `init --from`); default: command/args/env. */
  read?: (raw: Record<string, unknown>) => ForeignEntry;
}

/** A server entry found in a client's file, normalised across clients. */
export interface ForeignEntry {
  command?: string;
  args: string[];
  env: Record<string, string>;
  /** http, sse, url: not a stdio server */
  remote?: string;
  disabled?: boolean;
}

/** The env map a client writes: NAME → the client's reference to the host variable (only when it has one). */
export function envMap(entry: StdioEntry, envRef: ClientDescriptor["envRef"]): Record<string, string> | undefined {
  if (!envRef || Object.keys(entry.env).length === 0) return undefined;
  return Object.fromEntries(Object.entries(entry.env).map(([name, hostVar]) => [name, envRef(hostVar)]));
}

/** `Authorization: Bearer <reference to the token variable>` in the client's reference syntax. */
export const bearerHeaders = (e: HttpEntry, ref: (v: string) => string) => ({ Authorization: `Bearer ${ref(e.tokenVar)}` });

/** Drops undefined fields so rendered entries compare and print cleanly. */
export function compact<T extends Record<string, unknown>>(o: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
