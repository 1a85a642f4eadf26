/**
 * `mcpbox serve [server...]` (SPEC 4): the stdio gateway an MCP client launches. stdout carries only JSON-RPC;
 * everything human goes to stderr. Returns when stdin ends or on SIGINT/SIGTERM, after every container is removed.
 */
import type { Context } from "../context.ts";
import { displayPath, loadConfig } from "../../config/load.ts";
import { formatProblem } from "../../config/problems.ts";
import { BoundedStdioTransport } from "../../gateway/stdio.ts";
import { createGateway } from "../../gateway/start.ts";
import { publishGateway } from "../../monitor/publisher.ts";
import { EXIT, messageOf } from "../../errors.ts";
import { ISSUES_URL, VERSION } from "../../version.ts";
import { terminalLine } from "../../text/terminal.ts";

// the one sink of the gateway's human lines: server stderr, errors and names reach it, so it takes out escapes
const log = (line: string) => void process.stderr.write(`mcpbox: ${terminalLine(line)}\n`);

export async function run(ctx: Context, names: string[] = []): Promise<number> {
  // a stray rejection in one server's traffic must not take every other server down with the gateway
  process.on("unhandledRejection", (e) => log(`internal error (the gateway keeps running): ${messageOf(e)}`));
  const { file, config, warnings } = await loadConfig({ cwd: ctx.cwd, configPath: ctx.configPath });
  for (const w of warnings) log(`warning: ${formatProblem(displayPath(file, ctx.cwd), w)}`);
  const { gateway, events, info } = await createGateway(config, names, log);
  log(`gateway ${info.session} serving ${[...gateway.upstreams.keys()].join(", ")}`);

  const publication = await publishGateway(events, info, { restart: (s) => gateway.restart(s) }).catch((e) => {
    log(`monitor socket unavailable: ${messageOf(e)}`);
    return undefined;
  });
  let failed = false;
  const stopped = new Promise<string>((resolve) => {
    gateway.server.onclose = () => resolve("the client closed stdin");
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
  await gateway.connect(new BoundedStdioTransport(process.stdin, process.stdout));
  gateway.startEager();

  const why = await stopped;
  log(`stopping (${why})`);
  await publication?.close().catch(() => {});
  await gateway.close();
  return failed ? EXIT.internal : 0;
}
