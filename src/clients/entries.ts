/**
 * The stdio entries mcpbox adds to a client: one gateway entry, or one `docker run` entry per server. Pure: the
 * mcpbox command and the image names are inputs. Secrets appear by name only.
 */
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { directEgressError, dockerRunArgs } from "../policy/run.ts";
import type { StdioEntry } from "./types.ts";

export const GATEWAY_ENTRY = "mcpbox";

export type Mode = "gateway" | "direct";

export interface EntryInputs {
  config: ResolvedConfig;
  /** argv that runs this mcpbox (selfCommand()) */
  self: readonly string[];
  /** the image a server runs, for direct mode */
  imageOf: (server: ResolvedServer) => string;
  /** the docker client direct entries run (default "docker") */
  docker?: string;
}

export interface Entries {
  entries: StdioEntry[];
  /** what the user should know: skipped servers, guards direct mode cannot apply */
  notes: string[];
}

export function buildEntries(mode: Mode, inputs: EntryInputs): Entries {
  return mode === "gateway" ? gatewayEntries(inputs) : directEntries(inputs);
}

/** `mcpbox serve -c <config>`; the gateway reads secrets from its environment, so their host variables are named. */
function gatewayEntries({ config, self }: EntryInputs): Entries {
  const [command, ...pre] = self;
  const env: Record<string, string> = {};
  for (const s of config.servers) {
    for (const secret of Object.values(s.secrets)) if ("env" in secret) env[secret.env] = secret.env;
  }
  const entry = { name: GATEWAY_ENTRY, command: command!, args: [...pre, "serve", "-c", config.file], env: sorted(env) };
  return { entries: [entry], notes: [] };
}

function directEntries({ config, imageOf, docker = "docker" }: EntryInputs): Entries {
  const allowlisted = config.servers.filter((s) => s.egress).map((s) => s.name);
  if (allowlisted.length > 0) throw directEgressError(allowlisted, config.file);
  const entries: StdioEntry[] = [];
  const notes: string[] = [];
  for (const s of config.servers) {
    if (s.source.kind === "builtin") {
      notes.push(`${s.name}: skipped: the built-in ${s.source.builtin} runs only inside the gateway (--mode gateway)`);
      continue;
    }
    const env: Record<string, string> = {};
    for (const [name, secret] of Object.entries(s.secrets)) {
      if ("env" in secret) env[name] = secret.env;
      else {
        env[name] = name;
        notes.push(`${s.name}: secret ${name} is read from a file by the gateway; in direct mode set ${name} in the client's environment`);
      }
    }
    const args = dockerRunArgs(s, { image: imageOf(s), configHash: config.hash });
    entries.push({ name: directName(s.name), command: docker, args, env: sorted(env) });
    notes.push(...unenforced(s));
  }
  if (entries.length > 0) notes.push("direct mode keeps no audit log and shows nothing in `mcpbox monitor` (the gateway does both)");
  return { entries, notes };
}

export const directName = (server: string) => `mcpbox-${server}`;

/** Guards that live in the gateway and so do not apply to a bare `docker run`. */
function unenforced(s: ResolvedServer): string[] {
  const lost = [
    s.tools.allow !== undefined || s.tools.deny.length > 0 ? "tools.allow/deny" : "",
    s.approve.length > 0 ? "approve" : "",
    s.mounts.length > 0 ? "path-argument checks" : "",
  ].filter(Boolean);
  return lost.length > 0 ? [`${s.name}: direct mode does not apply ${lost.join(", ")} (the gateway does)`] : [];
}

const sorted = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
