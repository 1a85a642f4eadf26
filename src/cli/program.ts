/**
 * The mcpbox command line (commander). Commands are declared here and loaded lazily, so each pays only for what it
 * uses; run.ts loads this module for every command line that quick.ts does not answer alone.
 */
import { Command, Option } from "commander";
import { VERSION } from "../version.ts";
import type { Context } from "./context.ts";

export { CommanderError } from "commander";

type Loader = () => Promise<{ run: (ctx: Context, ...args: never[]) => Promise<number | void> }>;

/** parsed: tests only, given each command line's command, context and positional arguments instead of running the command */
export function buildProgram(onRun: (exitCode: number) => void, parsed?: (command: string, ctx: Context, positional: unknown[]) => void): Command {
  const program = new Command("mcpbox")
    .description("Run MCP servers in hardened Docker containers behind one stdio gateway")
    .version(VERSION, "--version", "print the version")
    .helpOption("-h, --help", "show help")
    .option("-c, --config <path>", "config file (default: sandbox.config.{ts,mts,js,mjs,json} found upward)")
    .showSuggestionAfterError(true)
    // -c/--config is global: every command's --help lists it too
    .configureHelp({ showGlobalOptions: true })
    .exitOverride();
  program.configureOutput({ outputError: (str, write) => write(str) });

  const lazy = (load: Loader) =>
    async function (this: Command, ...args: unknown[]) {
      const cmd = args[args.length - 1] as Command;
      const positional = args.slice(0, -2);
      const options = cmd.optsWithGlobals();
      const ctx: Context = { configPath: options.config as string | undefined, cwd: process.cwd(), options };
      if (parsed) return void (parsed(cmd.name(), ctx, positional), onRun(0));
      const mod = await load();
      const code = await mod.run(ctx, ...(positional as never[]));
      onRun(typeof code === "number" ? code : 0);
    };

  const json = new Option("--json", "print one JSON document on stdout");

  program
    .command("init")
    .description("scaffold sandbox.config.ts (with editor types), or convert a client's config with --from")
    .argument("[dir]", "folder to write into", ".")
    .option("--from <client-or-path>", "convert an existing MCP client config (claude-desktop, cursor, claude-code, vscode or a file)")
    .option("--force", "overwrite an existing sandbox.config.ts")
    .action(lazy(() => import("./commands/init.ts")));

  program
    .command("validate")
    .description("load and check the config; print every problem")
    .addOption(json)
    .action(lazy(() => import("./commands/validate.ts")));

  program
    .command("build")
    .description("build the images of template and Dockerfile servers")
    .argument("[server...]", "only these servers")
    .addOption(json)
    .option("--no-cache", "build without Docker's layer cache")
    .option("--pull", "refresh the base images first")
    .option("--push", "push the images to build.registry")
    .option("--print", "print the rendered Dockerfile instead of building")
    .option("--ca-cert <path>", "CA bundle handed to package managers during the build")
    .action(lazy(() => import("./commands/build.ts")));

  program
    .command("serve")
    .description("the stdio gateway an MCP client launches (or Streamable HTTP with --http)")
    .argument("[server...]", "only these servers")
    .option("--http [host:port]", "serve Streamable HTTP at http://<host:port>/mcp instead of stdio (default 127.0.0.1:8808)")
    .option("--allow-unauthenticated", "with --http on a loopback address: take requests without the bearer token")
    .action(lazy(() => import("./commands/serve.ts")));

  program
    .command("token")
    .description("print the bearer token that serve --http requires (made on first use)")
    .option("--rotate", "replace it with a new one (the old one stops working at once)")
    .action(lazy(() => import("./commands/token.ts")));

  program
    .command("tools")
    .description("list the tools a client would see, or call one")
    .argument("[server...]", "only these servers")
    .addOption(json)
    .option("--call <tool>", "call this tool (gateway name) and print its result; a JSON object after it is its arguments")
    .option("--args <json>", "arguments of --call as a JSON object")
    .action(lazy(() => import("./commands/tools.ts")));

  program
    .command("config")
    .description("print or write the MCP client configuration")
    .argument("<client>", "claude-desktop, claude-code, cursor, vscode, windsurf, zed, cline, continue, goose, gemini-cli, codex, lm-studio, opencode")
    .addOption(new Option("--mode <mode>", "one gateway entry, one docker run entry per server, or the URL of serve --http").choices(["gateway", "direct", "http"]).default("gateway"))
    .option("--http <host:port>", "with --mode http: the address serve --http listens on (default 127.0.0.1:8808)")
    .option("--write", "merge into the client's config file (backup first)")
    .option("--file <path>", "the client's config file (default: its usual location)")
    .action(lazy(() => import("./commands/config.ts")));

  program
    .command("monitor")
    .description("live dashboard of the running gateways")
    .option("--session <id>", "only this gateway session")
    .action(lazy(() => import("./commands/monitor.ts")));

  program
    .command("ps")
    .description("running gateways and their containers")
    .addOption(json)
    .action(lazy(() => import("./commands/ps.ts")));

  program
    .command("doctor")
    .description("check the Docker engine, base images and the config")
    .addOption(json)
    .action(lazy(() => import("./commands/doctor.ts")));

  program
    .command("schema")
    .description("print the JSON Schema of the config")
    .action(lazy(() => import("./commands/schema.ts")));

  // the detached watcher a gateway starts so that its containers never outlive it (src/docker/cleanup.ts)
  program
    .command("__reap", { hidden: true })
    .requiredOption("--session <id>")
    .requiredOption("--pid <pid>")
    .action(lazy(() => import("./commands/__reap.ts")));

  // the egress proxy and forwarder of allowlisted servers, run inside their own containers (src/egress)
  program.command("__egress", { hidden: true }).action(lazy(() => import("./commands/__egress.ts")));

  return program;
}

