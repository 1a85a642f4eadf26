/**
 * `mcpbox build [server...]`: images of template and Dockerfile servers (SPEC 3), and the missing images of `image:`
 * servers pulled (so CI can prefetch what serve needs). A live view on a TTY, timestamped lines otherwise, one JSON
 * document with --json; --print shows the rendered Dockerfiles and builds nothing.
 */
import fs from "node:fs";
import path from "node:path";
import type { Context } from "../context.ts";
import { loadConfig } from "../../config/load.ts";
import type { ResolvedConfig, ResolvedServer } from "../../config/resolve.ts";
import { McpboxError } from "../../errors.ts";
import { pick } from "../../images/select.ts";
import { planBuild } from "../../images/plan.ts";
import { describeEvent } from "../../images/describe.ts";
import type { BuildEvent } from "../../images/builder.ts";
import { terminalLine, terminalText } from "../../text/terminal.ts";
import { err, out, printJson } from "../output.ts";

export async function run(ctx: Context, names: string[] = []): Promise<number> {
  const { config } = await loadConfig({ configPath: ctx.configPath, cwd: ctx.cwd });
  const servers = buildable(config, names);
  const caCert = caCertOption(ctx);
  if (ctx.options.print) return printDockerfiles(config, servers.filter(isBuildable), caCert);
  // the engine client is loaded only when something talks to the engine (--print does not)
  const [{ engine }, { registryOf }, { runBuilds }] = await Promise.all([
    import("../../docker/engine.ts"),
    import("../../images/builder.ts"),
    import("../../images/run-builds.ts"),
  ]);
  if (ctx.options.push) registryOf(config);
  // no ping first: the first image lookup reports an unreachable engine just as well, one round trip sooner
  const docker = engine();
  const view = await progressView(ctx, servers);
  const { outcomes, error } = await runBuilds(docker, config, servers, {
    noCache: ctx.options.cache === false,
    pull: ctx.options.pull === true,
    push: ctx.options.push === true,
    caCert,
    onEvent: view.onEvent,
  }).finally(() => view.close());
  if (ctx.options.json) printJson(outcomes);
  if (error) throw error;
  if (servers.length === 0 && !ctx.options.json) err("nothing to build: no template, build or image servers selected");
  return 0;
}

const isBuildable = (s: ResolvedServer) => s.source.kind === "template" || s.source.kind === "build";
/** built, or (an `image:` server) pulled when missing */
const hasImage = (s: ResolvedServer) => isBuildable(s) || s.source.kind === "image";

function buildable(config: ResolvedConfig, names: string[]): ResolvedServer[] {
  const chosen = pick(config, names);
  const skipped = chosen.filter((s) => !hasImage(s) && names.includes(s.name));
  if (skipped.length > 0) {
    throw new McpboxError("usage", `${skipped.map((s) => s.name).join(", ")} ha${skipped.length === 1 ? "s" : "ve"} nothing to build`, {
      hint: "only servers with template, build or image have images to build or pull",
    });
  }
  return chosen.filter(hasImage);
}

function caCertOption(ctx: Context): string | undefined {
  const given = ctx.options.caCert;
  if (typeof given !== "string") return undefined;
  const file = path.resolve(ctx.cwd, given);
  if (!fs.existsSync(file)) throw new McpboxError("usage", `--ca-cert ${given} does not exist`, { hint: "pass a PEM CA bundle" });
  return file;
}

async function printDockerfiles(config: ResolvedConfig, servers: ResolvedServer[], caCert: string | undefined): Promise<number> {
  for (const server of servers) {
    const plan = await planBuild(server, config, { caCert: caCert ?? config.build.caCerts, imageId: async () => undefined });
    if (servers.length > 1) out(`# ===== ${server.name} (${plan.kind}) =====`);
    // a cloned repository's Dockerfile may carry escapes: shown safe on a terminal, exact when redirected to a file
    out(process.stdout.isTTY ? terminalText(plan.dockerfile) : plan.dockerfile);
  }
  return 0;
}

interface View {
  onEvent: (e: BuildEvent) => void;
  close: () => void;
}

async function progressView(ctx: Context, servers: ResolvedServer[]): Promise<View> {
  if (ctx.options.json) return { onEvent: () => {}, close: () => {} };
  if (process.stdout.isTTY && !process.env.CI) {
    const live = await import("../../tui/build-progress.tsx").catch(() => undefined); // .tsx exists only in the bundle
    if (live) return live.startBuildProgress(servers.map((s) => s.name));
  }
  return {
    onEvent: (e) => {
      const line = describeEvent(e);
      // a step's text and a failure's message can echo what a hostile Dockerfile's RUN printed
      if (line !== undefined) out(`[${new Date().toISOString().slice(11, 19)}] ${terminalLine(line)}`);
    },
    close: () => {},
  };
}
