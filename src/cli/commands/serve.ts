/**
 * `mcpbox serve [server...] [--http [host:]port]` (SPEC 4): the stdio gateway an MCP client launches. stdout carries
 * only JSON-RPC; everything human goes to stderr. Returns when stdin ends or on SIGINT/SIGTERM, after every container
 * is removed. With --http it serves Streamable HTTP instead (4.9, src/http) and stdin plays no part: only a signal stops it.
 */
import type { Context } from "../context.ts";
import { displayPath, loadConfig } from "../../config/load.ts";
import { formatProblem } from "../../config/problems.ts";
import { createGateway, selectServers } from "../../gateway/start.ts";
import { answerRecord, eagerImageIds } from "../../gateway/answer-record.ts";
import { EarlyStdio } from "../../gateway/early-stdio.ts";
import { homeFolder } from "../../home.ts";
import type { Launcher } from "../../gateway/launcher.ts";
import { pingEngineSocket } from "../../docker/engine-socket.ts";
import { publishGateway } from "../../monitor/publisher.ts";
import { EXIT, McpboxError, messageOf } from "../../errors.ts";
import { ISSUES_URL, VERSION } from "../../version.ts";
import { terminalLine } from "../../text/terminal.ts";

// the one sink of the gateway's human lines: server stderr, errors and names reach it, so it takes out escapes.
// A client that died takes its stderr pipe with it: the write fails (EPIPE) and is never tried again. Without the
// listener the failure became an uncaught exception, whose report wrote to stderr again, forever (a busy loop that
// starved the signal handlers and the shutdown).
let stderrOpen = true;
const log = (line: string) => {
  if (stderrOpen && !process.stderr.destroyed) process.stderr.write(`mcpbox: ${terminalLine(line)}\n`);
};

/** SPEC 4.2 allows 5 s from a signal to exit: what is not removed by then is the reaper's (it removes it in seconds). */
const STOP_DEADLINE_MS = 4000;

export async function run(ctx: Context, names: string[] = []): Promise<number> {
  // a stray rejection in one server's traffic must not take every other server down with the gateway
  process.on("unhandledRejection", (e) => log(`internal error (the gateway keeps running): ${messageOf(e)}`));
  process.stderr.on("error", () => (stderrOpen = false)); // stdout's end is the transport's (the client is gone)
  // the HTTP side only with its flags: @hono/node-server touches Node's fetch classes (undici, 750 KB of source
  // and its objects) as it loads, which a stdio gateway carried for nothing (issue 15)
  const httpSide = ctx.options.http !== undefined || ctx.options.allowUnauthenticated === true ? await import("../../http/run.ts") : undefined;
  const http = httpSide?.httpSettings(ctx.options); // bad flags and an untrusted token file stop serve before anything starts
  const stop = stopRequests(); // first: a signal stops serve at any moment, also while the config loads
  let launcher: Launcher | undefined;
  const starting = startGateway(ctx, names, (l) => (launcher = l), !http);
  starting.catch(() => {}); // a failure after a stop request is of no interest
  const started = await Promise.race([starting, stop.reason.then(() => undefined)]);
  if (!started) {
    // the config or the engine were still being set up, or servers with nothing cached had started before the
    // gateway was made: those containers are removed before serve exits (SPEC 4.2), as the gateway's close would
    log(`stopping (${await stop.reason})`);
    if (launcher && !(await within(launcher.close().catch(() => {}), STOP_DEADLINE_MS))) log("stopping took too long: the reaper removes the containers left");
    return stop.failed() ? EXIT.internal : 0;
  }
  const { gateway, publication, early } = started;
  let why: string;
  let listener: { close(): Promise<void> } | undefined;
  if (http && httpSide) {
    const served = await httpSide.serveHttp(gateway, http, log).catch((e: unknown) => e as Error);
    if (served instanceof Error) {
      await within(Promise.all([publication?.close().catch(() => {}), gateway.close().catch(() => {})]), STOP_DEADLINE_MS);
      throw served;
    }
    listener = served;
    gateway.startEager();
    why = await stop.reason;
  } else {
    const { BoundedStdioTransport } = await import("../../gateway/stdio.ts"); // with the gateway's SDK code (start.ts)
    const session = await gateway.connect(new BoundedStdioTransport(process.stdin, process.stdout, undefined, early?.handover()));
    gateway.startEager();
    why = await Promise.race([stop.reason, session.closed.then(() => "the client closed stdin")]);
  }
  log(`stopping (${why})`);
  const closeAll = async () => {
    await listener?.close().catch(() => {}); // the clients first: their calls are cancelled, no new ones arrive
    await gateway.close().catch((e: unknown) => log(`stopping: ${messageOf(e)}`));
  };
  const done = Promise.all([publication?.close().catch(() => {}), closeAll()]);
  if (!(await within(done, STOP_DEADLINE_MS))) log("stopping took too long: the reaper removes the containers left");
  return stop.failed() ? EXIT.internal : 0;
}

async function startGateway(ctx: Context, names: string[], onLauncher: (launcher: Launcher) => void, stdio: boolean) {
  // the engine's round trip overlaps the config's load; a bad config is still reported first (issue 15). On the
  // engine's socket without dockerode, which only the first container start needs
  const engineUp = pingEngineSocket(async () => (await import("../../docker/engine.ts")).pingEngine());
  engineUp.catch(() => {});
  const { file, config, warnings } = await loadConfig({ cwd: ctx.cwd, configPath: ctx.configPath });
  for (const w of warnings) log(`warning: ${formatProblem(displayPath(file, ctx.cwd), w)}`);
  // a stdio client's initialize and first tools/list get this set-up's recorded answers before the gateway's code
  // loads; the gateway answers them too and corrects what differed (early-stdio.ts, stdio.ts; issue 15)
  let redact: ((text: string) => string) | undefined;
  const servers = servedBy(config, names);
  // each eager server's image id, asked once on the engine's socket: the record's key, and the launcher's first look-ups
  const imageIds = servers && stdio ? eagerImageIds(config, servers) : undefined;
  const record = servers && imageIds ? recordOf(servers, imageIds, config, () => redact) : Promise.resolve(undefined);
  const early = stdio ? new EarlyStdio(process.stdin, process.stdout, record) : undefined;
  // the client sees each server's tools of its last run at once; a call waits for the server (issue 15)
  const { gateway, events, info } = await createGateway(config, names, log, {
    catalogCache: true, engineUp, onLauncher,
    ...(early ? { earlyAnswers: early.done } : {}),
    ...(imageIds ? { imageIds } : {}),
  });
  redact = gateway.options.redact;
  log(`gateway ${info.session} serving ${[...gateway.upstreams.keys()].join(", ")}`);
  const publication = await publishGateway(events, info, { restart: (s) => gateway.restart(s) }).catch((e) => {
    log(`monitor socket unavailable: ${messageOf(e)}`);
    return undefined;
  });
  return { gateway, publication, early };
}

/** The servers `serve [server...]` serves, or undefined when a name is unknown (createGateway reports it). */
function servedBy(config: Parameters<typeof selectServers>[0], names: readonly string[]) {
  try {
    return selectServers(config, names);
  } catch {
    return undefined;
  }
}

/** The record of this set-up's answers; undefined when it has none to key it by (answer-record.ts). */
function recordOf(servers: ReturnType<typeof selectServers>, imageIds: ReturnType<typeof eagerImageIds>, config: Parameters<typeof selectServers>[0], redact: () => ((text: string) => string) | undefined) {
  const holdsSecret = () => {
    const r = redact();
    return r && ((text: string) => r(text) !== text);
  };
  return answerRecord(servers, imageIds, config, () => homeFolder("cache/answers"), holdsSecret, () => homeFolder("cache/catalog")).catch(() => undefined);
}

/** SIGINT, SIGTERM, or a bug (uncaught), from the first moment of serve. */
function stopRequests(): { reason: Promise<string>; failed: () => boolean } {
  let failed = false;
  const reason = new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
    // a bug (no server input can throw this far: each line is handled in isolation) stops the gateway cleanly,
    // with every container removed and the bug named, never as a raw stack trace
    process.on("uncaughtException", (e) => {
      failed = true;
      log(`internal error: ${messageOf(e)}. This is a bug in mcpbox ${VERSION}; please report it at ${ISSUES_URL}`);
      resolve("internal error");
    });
  });
  return { reason, failed: () => failed };
}

/** True when `p` settled within `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const inTime = await Promise.race([p.then(() => true), late]);
  clearTimeout(timer);
  return inTime;
}
