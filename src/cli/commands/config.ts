/**
 * `mcpbox config <client> [--mode gateway|direct|http] [--write] [--file <path>]`: print the client's configuration
 * (stdout holds only the snippet), or merge it into the client's file with a backup, atomically and idempotently.
 * `--mode http` writes the URL of `serve --http` with the token as a reference to $MCPBOX_TOKEN, never its value.
 */
import fs from "node:fs";
import path from "node:path";
import type { Context } from "../context.ts";
import { McpboxError } from "../../errors.ts";
import { loadConfig } from "../../config/load.ts";
import { selfCommand } from "../../assets.ts";
import { getClient } from "../../clients/registry.ts";
import { buildEntries, GATEWAY_ENTRY, type Entries } from "../../clients/entries.ts";
import { mergedText, ownedNames, renderHttpEntry, snippetFor } from "../../clients/document.ts";
import type { Rendered } from "../../clients/formats/index.ts";
import { hostPort, parseListen } from "../../http/address.ts";
import { platformDirs } from "../../clients/paths.ts";
import { assertClientFile, readIfExists, writeIfChanged } from "../../clients/write.ts";
import { writeTargets, type Target } from "../../clients/targets.ts";
import { findOnPath } from "../../clients/_which.ts";
import type { ClientDescriptor, StdioEntry } from "../../clients/types.ts";
import { err, out, paint } from "../output.ts";

type Mode = "gateway" | "direct" | "http";

/** The variable a client's URL entry takes the token from (`export MCPBOX_TOKEN="$(mcpbox token)"`). */
export const TOKEN_VAR = "MCPBOX_TOKEN";

export async function run(ctx: Context, clientName: string): Promise<number> {
  const client = getClient(clientName);
  const mode = modeOf(ctx.options.mode);
  const { entries, notes } = mode === "http" ? httpEntries(client, ctx.options.http) : await stdioEntries(client, mode, ctx);

  if (ctx.options.write !== true) {
    out(snippetFor(client, entries));
    for (const n of notes) err(`${paint.yellow("note:")} ${n}`);
    if (typeof ctx.options.file === "string") err(`add --write to merge this into ${ctx.options.file}`);
    return 0;
  }
  for (const n of notes) err(`${paint.yellow("note:")} ${n}`);
  for (const target of targetFiles(client, ctx)) await writeOne(client, target, entries, mode);
  return 0;
}

async function stdioEntries(client: ClientDescriptor, mode: "gateway" | "direct", ctx: Context): Promise<{ entries: StdioEntry[]; notes: string[] }> {
  const { config } = await loadConfig({ configPath: ctx.configPath, cwd: ctx.cwd });
  const built = await entriesFor(mode, config);
  return { entries: built.entries, notes: [...built.notes, ...renameNotes(client, built.entries)] };
}

/** The URL entry; the config is not read (serve --http reads it), so the command works from any folder. */
function httpEntries(client: ClientDescriptor, address: unknown): { entries: Rendered[]; notes: string[] } {
  if (address !== undefined && address !== true && typeof address !== "string") throw new McpboxError("usage", "--http takes [host:]port");
  const listen = parseListen(address);
  const url = `http://${hostPort(listen.host === "0.0.0.0" || listen.host === "::" ? "127.0.0.1" : listen.host, listen.port)}/mcp`;
  const entries = renderHttpEntry(client, { name: GATEWAY_ENTRY, url, tokenVar: TOKEN_VAR });
  const notes = [
    `start ${client.title} with ${TOKEN_VAR} set to the token (export ${TOKEN_VAR}="$(mcpbox token)"); the file holds only the reference`,
    `run \`mcpbox serve --http${address === undefined || address === true ? "" : ` ${String(address)}`}\` before ${client.title} connects to ${url}`,
  ];
  return { entries, notes };
}

/** Merges the entries into one file (backup first, nothing when unchanged) and says what happened to it. */
async function writeOne(client: ClientDescriptor, target: Target, entries: readonly StdioEntry[] | readonly Rendered[], mode: Mode): Promise<void> {
  const { file, title } = target;
  assertClientFile(file); // before it is read: a repository's link to another file is neither read nor written
  const before = await readIfExists(file);
  const after = mergedText(client, before ?? "", entries, file);
  const result = await writeIfChanged(file, before, after);
  const written = new Set(entries.map((e) => e.name));
  const others = ownedNames(client, after).filter((n) => !written.has(n));
  if (others.length > 0) err(`${paint.yellow("note:")} ${file} also has ${others.join(", ")} from another mcpbox config or mode; remove what is stale`);
  if (!result.changed) {
    err(`${paint.green("✓")} ${file} already has the mcpbox ${mode} configuration; nothing changed`);
    return;
  }
  const names = entries.map((e) => e.name).join(", ");
  err(`${paint.green("✓")} ${before === undefined ? "created" : "updated"} ${file} (${names})`);
  if (result.backup) err(`  backup: ${result.backup}`);
  err(`  restart ${title} to load it`);
}

function modeOf(value: unknown): Mode {
  if (value === undefined || value === "gateway" || value === "direct" || value === "http") return value ?? "gateway";
  throw new McpboxError("usage", `--mode must be "gateway", "direct" or "http", not "${String(value)}"`);
}

async function entriesFor(mode: "gateway" | "direct", config: Parameters<typeof buildEntries>[1]["config"]): Promise<Entries> {
  if (mode === "gateway") return buildEntries(mode, { config, self: selfCommand(), imageOf: () => "" });
  const { directImages } = await import("../direct-images.ts");
  const images = await directImages(config);
  const docker = findOnPath("docker");
  const built = buildEntries(mode, { config, self: [], imageOf: images.imageOf, docker: docker ?? "docker" });
  const missing = images.missing.map((tag) => `${tag} is not built yet: run \`mcpbox build\` before the client starts it`);
  const noDocker = docker ? [] : ["no docker client on PATH: the entries run `docker`, which the client must find on its PATH"];
  return { entries: built.entries, notes: [...built.notes, ...missing, ...noDocker] };
}

/** --file alone, or the client's user-level file and each installed sibling's (Cline's CLI reads its own). */
function targetFiles(client: ClientDescriptor, ctx: Context): Target[] {
  if (typeof ctx.options.file === "string") return [{ title: client.title, file: path.resolve(ctx.cwd, ctx.options.file) }];
  const targets = writeTargets(client, platformDirs(), fs.existsSync);
  if (targets.length > 0) return targets;
  throw new McpboxError("usage", `${client.title} has no user-level config file on this system`, {
    hint: "pass the file to merge into with --file <path>",
  });
}

/** A client that cannot rename variables passes `-e NAME` from its own environment: NAME must be set there. */
function renameNotes(client: ClientDescriptor, entries: readonly StdioEntry[]): string[] {
  if (client.envRef) return [];
  const notes = new Set<string>();
  for (const e of entries) {
    for (const [name, hostVar] of Object.entries(e.env)) {
      if (client.serverEnv === "minimal") {
        notes.add(
          `${client.title} starts servers with only a few variables (HOME, PATH...) and expands no references, so ` +
            `${hostVar} will not reach ${name === hostVar ? "mcpbox" : name}: use a file secret ({ file: "..." }) in the sandbox config`,
        );
      } else {
        notes.add(
          name === hostVar
            ? `${client.title} must be started with ${name} in its environment (it is passed on by name)`
            : `${client.title} cannot map ${hostVar} to ${name}: start it with ${name} set in its environment`,
        );
      }
    }
  }
  return [...notes];
}
