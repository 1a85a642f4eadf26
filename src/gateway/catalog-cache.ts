/**
 * The catalog a client sees while the containers start (issue 15): what each server offered when it last ran (its
 * lists, capabilities, instructions and serverInfo), kept in $MCPBOX_HOME/cache/catalog, answers initialize and
 * tools/list at once; the first call to a server waits for it. A cached list is a claim about what a server offers
 * (its names become tools a model calls), so a file is believed only when
 *  - it lies in a folder homeFolder() made and checked (0700, this user's own: src/home.ts), and is itself a regular
 *    file (not a link, opened without following one) of this user that nobody else may read or write (0600): another
 *    user or a repository cannot plant it;
 *  - its name is the key of what will run: the server's whole resolved config and the id of the image it will start
 *    (a rebuilt or re-pulled image, or a changed config, is another key: its old lists are never read);
 *  - what it holds passes the checks the server's own answer passes: the MCP schemas and the caps of limits.ts.
 * A file that is there but fails a check is ignored with a warning (and replaced once the server is up). It is never
 * policy: the catalog built from it goes through the same tool policy and guards, and a call that waited for the start
 * goes only to what the server itself then lists (upstream.ts). A stale entry (a server that changed inside the same
 * image and config) is replaced by the server's own lists once it is up, and clients get list_changed for what differs.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { DiscoverResult, Implementation, ServerCapabilities } from "@modelcontextprotocol/server";
import type { ResolvedServer } from "../config/resolve.ts";
import { stableJson } from "../config/resolve.ts";
import { messageOf } from "../errors.ts";
import { pruneStale, touched } from "./cache-prune.ts";
import { CAPS } from "./limits.ts";
import type { ServerLists } from "./lists.ts";
import { shortHash } from "./names.ts";

/**
 * What a server offered when it last ran: enough to answer initialize and the lists before it is up again, and its
 * era verdict (the requests a client sends meanwhile are built for that era; its next start skips the probe).
 */
export interface RememberedServer {
  lists: ServerLists;
  capabilities: ServerCapabilities;
  instructions?: string | undefined;
  serverInfo?: Implementation | undefined;
  /** "modern": 2026-07-28, with its server/discover answer and the revision spoken; "legacy": 2025-11-25 */
  era: { kind: "legacy" } | { kind: "modern"; discover: DiscoverResult; revision: string };
}

/** read and write check with the SDK's schemas: loadCatalogChecks() first (the SDK loads with it). */
export interface CatalogCache {
  /** What this server offered when it last ran this image, when the file can be believed; else undefined. */
  read(server: ResolvedServer, imageId: string): RememberedServer | undefined;
  /** Keeps what the server offers (after it started or relisted); a cache that cannot be written only costs a start. */
  write(server: ResolvedServer, imageId: string, entry: RememberedServer): void;
  /**
   * Whether anything is at this server's and image's name (nothing is read or checked): false, and read() has
   * nothing to show either, so the server can start before the SDK is even loaded (issue 15: start cost).
   */
  exists(server: ResolvedServer, imageId: string): boolean;
  /**
   * Whether anything is there under this server's name, for any image (one listing of the folder per gateway, taken
   * before its first write): false means the server's look-up, whatever id its image has, finds nothing, so a start
   * can get ready before that id is known. True says nothing (exists() decides).
   */
  anyFor?(server: ResolvedServer): boolean;
}

export interface CatalogCacheOptions {
  /** the owner a file must have (process.getuid()) */
  uid?: number | undefined;
  /** a file that is there and is not believed (once per file and reason) */
  warn?: (line: string) => void;
  /** the gateway's redaction of secret values: an entry in which it changes anything is not written */
  redact?: (text: string) => string;
}

/** Instructions kept at most this long (a server's own are passed on as they are; a longer one is not cached). */
export const INSTRUCTIONS_CAP = 256 * 1024;
/** A file longer than this is not read at all. */
const FILE_CAP = CAPS.listBytes + INSTRUCTIONS_CAP + 64 * 1024;
const FORMAT = 2;

/** `folder`: a function that makes and checks it, e.g. `() => homeFolder("cache/catalog")`; when it throws, nothing is read or written. */
export function catalogCache(folder: () => string, o: CatalogCacheOptions = {}): CatalogCache {
  const uid = "uid" in o ? o.uid : process.getuid?.();
  const warned = new Set<string>();
  // the folder as checked by the first read of this gateway: ours and 0700 then, nobody else can change that; a
  // start's reads (one per server) check it once (a write checks it again)
  let readFrom: string | undefined;
  let names: string[] | undefined;
  let pruned = false; // the folder's stale files, once per cache (cache-prune.ts)
  const warn = (line: string) => {
    if (!o.warn || warned.has(line) || warned.size > 100) return;
    warned.add(line);
    o.warn(line);
  };
  return {
    read(server, imageId) {
      let dir: string;
      try {
        dir = readFrom ??= folder();
      } catch (e) {
        warn(`the cached catalog is not used: ${messageOf(e)}`);
        return undefined;
      }
      const target = path.join(dir, cacheFileName(server, imageId));
      let fd: number;
      try {
        fd = fs.openSync(target, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== "ENOENT") warn(`ignored the cached catalog ${target}: ${code === "ELOOP" ? "it is a link" : messageOf(e)}; it is rewritten when server ${server.name} is up`);
        return undefined;
      }
      try {
        const st = fs.fstatSync(fd);
        const why = fileProblem(st, uid) ?? (st.size > FILE_CAP ? `it is larger than ${FILE_CAP} bytes` : undefined);
        if (why) return void warn(`ignored the cached catalog ${target}: ${why}; it is rewritten when server ${server.name} is up`);
        const text = fs.readFileSync(fd, "utf8");
        let raw: unknown;
        try {
          raw = JSON.parse(text);
        } catch {
          raw = undefined;
        }
        const entry = checkedEntry(raw);
        const older = typeof (raw as { v?: unknown } | undefined)?.v === "number" && (raw as { v: number }).v !== FORMAT;
        if (!entry && !older) warn(`ignored the cached catalog ${target}: it is not what mcpbox writes there (a list item or a cap check failed); it is rewritten when server ${server.name} is up`);
        if (entry) touched(fd);
        return entry;
      } catch (e) {
        warn(`ignored the cached catalog ${target}: ${messageOf(e)}`);
        return undefined;
      } finally {
        fs.closeSync(fd);
      }
    },
    exists(server, imageId) {
      try {
        fs.lstatSync(path.join((readFrom ??= folder()), cacheFileName(server, imageId)));
        return true;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code !== "ENOENT"; // a folder that fails its checks: read() says why
      }
    },
    anyFor(server) {
      try {
        names ??= fs.readdirSync((readFrom ??= folder()));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") return true; // a folder that fails its checks: read() says why
        names = [];
      }
      const prefix = `${fileStem(server)}-`;
      return names.some((n) => n.startsWith(prefix));
    },
    write(server, imageId, entry) {
      try {
        // only what a later read takes: a server whose answer the checks refuse is simply not cached
        const text = JSON.stringify({ v: FORMAT, ...entry });
        if (Buffer.byteLength(text) > FILE_CAP || !checkedEntry(JSON.parse(text))) return;
        // a server that spells a secret value it was given into its lists leaves it in memory, not on disk
        if (o.redact && o.redact(text) !== text) return;
        const dir = folder();
        const target = path.join(dir, cacheFileName(server, imageId));
        const tmp = `${target}.${randomBytes(4).toString("hex")}.tmp`;
        fs.writeFileSync(tmp, text, { mode: 0o600, flag: "wx" });
        fs.renameSync(tmp, target); // replaces a link planted at the name, never writes through it
        if (!pruned) (pruned = true), pruneStale(dir);
      } catch {
        // only an optimisation
      }
    },
  };
}

/** `<server>-<hash of its resolved config and image id>.json`, the server name cut to what a file name may hold. */
export function cacheFileName(server: ResolvedServer, imageId: string): string {
  return `${fileStem(server)}-${shortHash(`${stableJson(server)}\0${imageId}`, 16)}.json`;
}

const fileStem = (server: ResolvedServer): string => server.name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);

/** A regular file of this user that group and others can neither read nor write (Windows: no POSIX owner or modes). */
export function trustedFile(st: fs.Stats, uid: number | undefined, platform: NodeJS.Platform = process.platform): boolean {
  return fileProblem(st, uid, platform) === undefined;
}

function fileProblem(st: fs.Stats, uid: number | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!st.isFile()) return "it is not a regular file";
  if (platform === "win32") return undefined;
  if (uid !== undefined && st.uid !== uid) return `it belongs to another user (uid ${st.uid})`;
  if ((st.mode & 0o077) !== 0) return `others may read or write it (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

/** A cache file's contents, checked as a server's answers are; undefined when anything fails. */
export function checkedEntry(raw: unknown): RememberedServer | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (r.v !== FORMAT) return undefined;
  const lists = checkedLists(r.lists);
  if (!lists) return undefined;
  if (!is().ServerCapabilities(r.capabilities)) return undefined;
  if (r.instructions !== undefined && (typeof r.instructions !== "string" || r.instructions.length > INSTRUCTIONS_CAP)) return undefined;
  const era = checkedEra(r.era);
  if (!era) return undefined;
  let serverInfo: Implementation | undefined;
  if (r.serverInfo !== undefined) {
    if (!is().Implementation(r.serverInfo) || JSON.stringify(r.serverInfo).length > 64 * 1024) return undefined;
    serverInfo = r.serverInfo as Implementation;
  }
  return {
    lists,
    capabilities: r.capabilities as ServerCapabilities, // as written: the server's own answer compares equal to it
    ...(typeof r.instructions === "string" ? { instructions: r.instructions } : {}),
    ...(serverInfo ? { serverInfo } : {}),
    era,
  };
}

function checkedEra(raw: unknown): RememberedServer["era"] | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const e = raw as Record<string, unknown>;
  if (e.kind === "legacy") return { kind: "legacy" };
  if (e.kind !== "modern" || typeof e.revision !== "string" || e.revision.length > 64) return undefined;
  if (!is().DiscoverResult(e.discover) || JSON.stringify(e.discover).length > INSTRUCTIONS_CAP + 64 * 1024) return undefined;
  return { kind: "modern", discover: e.discover as DiscoverResult, revision: e.revision };
}

type SpecName = "Tool" | "Prompt" | "Resource" | "ResourceTemplate" | "ServerCapabilities" | "Implementation" | "DiscoverResult";
type JitlessParse = (value: unknown, ctx: { jitless: true }) => { success: boolean };

/**
 * isSpecType's checks (the same SDK schemas, as strict), parsed without zod's JIT: it compiles a fast path for each
 * object schema at its first use, which a start that checks each kind a hundred times over pays for and never gets
 * back (5 servers' entries: ~14 -> ~9 ms CPU, measured). isSpecType itself when a schema is no zod schema.
 */
type Sdk = typeof import("@modelcontextprotocol/server");
function jitlessCheck(sdk: Sdk, name: SpecName): (value: unknown) => boolean {
  const schema = sdk.specTypeSchemas[name] as unknown as { safeParse?: JitlessParse };
  const parse = schema.safeParse;
  return typeof parse === "function" ? (value) => parse.call(schema, value, { jitless: true }).success : sdk.isSpecType[name];
}

type Checks = Record<SpecName, (value: unknown) => boolean>;
let checks: Checks | undefined;

/**
 * The SDK's schemas for the checks, loaded (once) before a read or write: the SDK builds its protocol schemas as it
 * loads, which a start whose servers have nothing cached should not wait for before it makes their containers.
 */
export async function loadCatalogChecks(): Promise<void> {
  if (checks) return;
  const sdk = await import("@modelcontextprotocol/server");
  checks ??= Object.fromEntries(
    (["Tool", "Prompt", "Resource", "ResourceTemplate", "ServerCapabilities", "Implementation", "DiscoverResult"] as const).map((n) => [n, jitlessCheck(sdk, n)]),
  ) as Checks;
}

/** The checks; a read or write before loadCatalogChecks() is a bug (it would believe or refuse nothing). */
function is(): Checks {
  if (!checks) throw new Error("the catalog cache checks are not loaded (loadCatalogChecks)");
  return checks;
}

/** The lists of a cache file, checked as a server's answer is (each item's MCP schema, the caps); undefined when any fails. */
export function checkedLists(raw: unknown): ServerLists | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const out: Partial<Record<keyof ServerLists, unknown[]>> = {};
  let bytes = 0;
  const c = is();
  const ITEM = { tools: c.Tool, prompts: c.Prompt, resources: c.Resource, templates: c.ResourceTemplate } as const;
  for (const kind of Object.keys(ITEM) as (keyof ServerLists)[]) {
    const items = r[kind] ?? [];
    if (!Array.isArray(items)) return undefined;
    if (items.length > (kind === "templates" ? CAPS.listTemplates : CAPS.listItems)) return undefined;
    // the items as written (the schemas keep unknown keys anyway): the server's own answer compares equal to them
    for (const item of items) if (!ITEM[kind](item)) return undefined;
    bytes += JSON.stringify(items).length;
    if (bytes > CAPS.listBytes) return undefined;
    out[kind] = items;
  }
  return out as ServerLists;
}
