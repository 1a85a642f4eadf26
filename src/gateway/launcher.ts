/**
 * How the gateway gets a running server: anything with an MCP transport, a stderr feed, an exit promise and stop().
 * The Docker launcher (docker-launcher.ts) starts containers; tests may launch host processes.
 */
import type { Transport } from "@modelcontextprotocol/client";
import type { ResolvedServer } from "../config/resolve.ts";
import type { RememberedServer } from "./catalog-cache.ts";

export interface ExitInfo {
  exitCode: number;
  oomKilled: boolean;
}

export interface LaunchedServer {
  /** the container id (or a process id for host launches) */
  readonly id: string;
  readonly transport: Transport;
  onStderr(listener: (line: string) => void): () => void;
  readonly exited: Promise<ExitInfo>;
  stop(timeoutMs?: number): Promise<void>;
}

export interface Launcher {
  /** work before the startup timeout applies (building a missing image); repeated calls are cheap */
  prepare?(server: ResolvedServer): Promise<void>;
  launch(server: ResolvedServer): Promise<LaunchedServer>;
  /**
   * What the server offered when it last ran the image it will run now (catalog-cache.ts), found without building
   * or pulling anything; undefined when nothing can be believed. Shown to clients while the server starts.
   */
  remembered?(server: ResolvedServer): Promise<RememberedServer | undefined>;
  /** Keeps what a launched server offers, under the image it runs, for the next gateway's start. */
  remember?(server: ResolvedServer, launched: LaunchedServer, entry: RememberedServer): Promise<void>;
  /**
   * Settles once the starts the launcher began by itself (servers with nothing remembered, before their Upstream
   * asked) have their containers started by the engine (at most a moment after they were made), or failed: the
   * gateway's own code loads after that (issue 15).
   */
  earlyStarts?: Promise<void>;
  /** removes whatever this launcher left behind (containers of the session) */
  close(): Promise<void>;
}
