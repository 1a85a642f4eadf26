/**
 * `--from <client or path>` → the file to read and the client whose shape it has. A file in a git working tree is
 * read only where it resolves inside that tree (a cloned project's `.cursor/mcp.json` that links to the user's
 * global file would make it the project's config), as `config --write` writes (clients/write.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { McpboxError } from "../../errors.ts";
import { findClient, clientNames } from "../registry.ts";
import { platformDirs } from "../paths.ts";
import type { ClientDescriptor, ConfigFormat } from "../types.ts";
import { assertClientFileToRead } from "../write.ts";
import { realTrustFs, untrustedReason, type TrustFs } from "../../config/_trust.ts";

export interface Located {
  file: string;
  client: ClientDescriptor | undefined;
  format: ConfigFormat;
  /** what the user should know about the choice, e.g. a project file that was passed over */
  notes: string[];
}

export interface LocateOptions {
  cwd: string;
  home?: string;
  platform?: NodeJS.Platform;
  /** owners and modes (tests fake them) */
  trust?: TrustFs;
}

export function locate(from: string, opts: LocateOptions): Located {
  const located = choose(from, opts);
  assertClientFileToRead(located.file);
  return located;
}

function choose(from: string, opts: LocateOptions): Located {
  const client = findClient(from);
  if (client) {
    // the user's own file first: a project file in the working folder may come from a repository just cloned
    const project = client.projectFile ? path.join(opts.cwd, client.projectFile) : undefined;
    const user = client.userFile(platformDirs({ home: opts.home, platform: opts.platform }));
    const found = (f: string | undefined): f is string => f !== undefined && fs.existsSync(f);
    if (found(user)) {
      const notes = found(project) ? [`${project} (this folder's project file) was not read; pass --from ${client.projectFile} to convert it instead`] : [];
      return { file: user, client, format: client.format, notes };
    }
    if (found(project)) {
      // the file a client's name falls back to lies in the working folder, which may be shared: one another user owns
      // or could swap becomes the user's own config, run by every later command (as discovery refuses such a config)
      const why = untrustedReason(project, opts.trust ?? realTrustFs());
      if (why) {
        throw new McpboxError("config", `--from ${from} would read the project file ${why.message}`, {
          hint: `${why.hint}; or, if you trust that file, name it yourself: mcpbox init --from ${project}`,
        });
      }
      const notes = [`read the project file ${project}${user ? ` (there is no ${user})` : ""}: check its servers before you serve them`];
      return { file: project, client, format: client.format, notes };
    }
    throw new McpboxError("config", `no ${client.title} configuration found${user ? ` at ${user}` : ""}`, {
      hint: `pass the file instead: mcpbox init --from <path>`,
    });
  }
  const file = path.resolve(opts.cwd, from.startsWith("~/") && opts.home ? path.join(opts.home, from.slice(2)) : from);
  if (!fs.existsSync(file)) {
    throw new McpboxError("config", `--from ${from}: no such client or file`, {
      hint: `clients: ${clientNames().join(", ")}; or give the path of a client's config file`,
    });
  }
  const note = foreignNote(file, opts.trust ?? realTrustFs());
  return { file, client: undefined, format: formatOfPath(file), notes: note ? [note] : [] };
}

/**
 * A file the user named is read as named (a client's name never falls back to such a file), but one another user
 * owns or may change is said to be so: its servers become the user's own config, run with the user's rights.
 */
function foreignNote(file: string, tfs: TrustFs): string | undefined {
  if (tfs.uid === undefined) return undefined;
  try {
    const st = tfs.stat(tfs.realpath(file));
    if (st.uid !== tfs.uid && st.uid !== 0) return `${file} belongs to another user (uid ${st.uid}): read because you named it; check its servers before you serve them`;
    if (st.mode & 0o022) return `${file} can be changed by other users (mode ${(st.mode & 0o777).toString(8).padStart(3, "0")}): read because you named it; check its servers before you serve them`;
  } catch {
    // read below, where a file that cannot be read gets its own error
  }
  return undefined;
}

function formatOfPath(file: string): ConfigFormat {
  if (file.endsWith(".toml")) return "toml";
  if (/\.ya?ml$/.test(file)) return "yaml";
  return "jsonc";
}
