/**
 * The answers a stdio gateway gave its client's `initialize` and first `tools/list`, kept per gateway set-up under
 * `$MCPBOX_HOME/cache/answers` so the next start of the same set-up gives them before its SDK code loads
 * (early-stdio.ts; issue 15: spawn → tools/list). A set-up is this build, the resolved config of the servers served
 * and the id of the image each eager one runs now (asked of the engine at every start, never assumed): a change of
 * any of them is another file. Each answer given early is still computed by the gateway itself once it is up and
 * compared (stdio.ts): one that differs is replaced here, and a tools/list that differed is followed by
 * notifications/tools/list_changed, so the client lists again and gets the gateway's own answer.
 *
 * Believed as the catalog cache is (SECURITY.md boundary 10): a regular file of this user that nobody else can read
 * or write, opened without following a link, within a size cap. An answer holding a secret value is never written.
 * No SDK here: this runs before the gateway's code loads.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ResolvedConfig, ResolvedServer } from "../config/resolve.ts";
import { stableJson } from "../config/resolve.ts";
import { imageIdOf } from "../docker/engine-socket.ts";
import { pruneStale, touched } from "./cache-prune.ts";
import { cacheFileName, trustedFile } from "./catalog-cache.ts";
import { CAPS } from "./limits.ts";
import { shortHash } from "./names.ts";
import { VERSION } from "../version.ts";

/** The requests whose answers are kept: what a client asks first, before it can use anything. */
export type EarlyMethod = "initialize" | "tools/list";

export interface RecordedAnswer {
  method: EarlyMethod;
  /** the request's params as JSON (`null` when it had none): an answer is given only to the same params */
  params: string;
  /** the result as JSON, as the gateway wrote it */
  result: string;
}

export interface AnswerRecord {
  /** true when nothing is recorded for this set-up yet */
  empty(): boolean;
  /** the recorded result for this request, if any */
  find(method: EarlyMethod, params: string): string | undefined;
  /** keeps the gateway's own answer (replacing the one for the same request); never one holding a secret */
  put(answer: RecordedAnswer): void;
}

const FORMAT = 1;
/** a tools/list of the list caps, an initialize or two and their params */
const FILE_CAP = CAPS.listBytes + 512 * 1024;
/** answers kept per method (clients of several versions on one set-up), the latest first */
const PER_METHOD = 3;

/**
 * The record of this set-up, read now (empty while an eager server's catalog-cache entry is missing or would not be
 * believed: catalogsBelieved); undefined when the set-up has no key (an eager server whose image id `imageIds` has
 * not: a missing image, an engine not on a local socket).
 * `folder` makes and checks the folder (homeFolder); when it throws, nothing is read or written.
 */
export async function answerRecord(
  servers: readonly ResolvedServer[],
  imageIds: Promise<ReadonlyMap<string, string | undefined>>,
  config: ResolvedConfig,
  folder: () => string,
  holdsSecret: () => ((text: string) => boolean) | undefined,
  catalogFolder: () => string,
  build: string = buildIdentity(import.meta.url),
): Promise<AnswerRecord | undefined> {
  const known = await imageIds;
  const ids = servers.map((s) => (s.startup !== "eager" ? "lazy" : s.source.kind === "builtin" ? "builtin" : known.get(s.name)));
  if (!ids.every((id): id is string => typeof id === "string")) return undefined;
  const key = shortHash(`${FORMAT}\0${build}\0${config.hash}\0${stableJson(servers)}\0${ids.join(",")}`, 32);
  // nothing is given early where the gateway would not answer from its catalog cache (it is still recorded)
  let answers = catalogsBelieved(servers, ids, catalogFolder) ? readAnswers(folder, key) : [];
  return {
    empty: () => answers.length === 0,
    find: (method, params) => answers.find((a) => a.method === method && a.params === params)?.result,
    put(answer) {
      const secret = holdsSecret();
      // no redactor yet (the gateway is not made), or a secret in it: nothing is written
      if (!secret || secret(answer.params) || secret(answer.result)) return;
      const same = answers.filter((a) => a.method === answer.method);
      if (same[0]?.params === answer.params && same[0].result === answer.result) return;
      const kept = [answer, ...same.filter((a) => a.params !== answer.params)].slice(0, PER_METHOD);
      answers = [...kept, ...answers.filter((a) => a.method !== answer.method)];
      writeAnswers(folder, key, answers);
    },
  };
}

/**
 * This build, as the key of its answers: the code's URL, its version and, where that URL is a file (the npm package's
 * one ESM file, the sources), the file's size and time. The URL alone is the same after an upgrade in place
 * (`npm install -g mcpbox`, a rebuilt tree): the new code then gave the old one's initialize, which nothing corrects
 * in that session (its instructions included, whatever a fix since changed in them). The single executable's URL
 * (file:///mcpbox/<build>/...) names its build already, and no file is there.
 */
export function buildIdentity(url: string): string {
  let stamp = "";
  try {
    if (url.startsWith("file:")) {
      const st = fs.statSync(fileURLToPath(url));
      stamp = `${st.size}:${st.mtimeMs}:${st.ino}`;
    }
  } catch {
    // not a file: the URL names the build
  }
  return `${url}\0${VERSION}\0${stamp}`;
}

/**
 * The id of each eager server's image now, by server name, asked of the engine on its socket (no dockerode): an
 * `image:` server's reference, a template or `build:` server's content tag (images/plan.ts, nothing built); none for
 * one whose image is missing or cannot be had this way (an engine not on a local socket). The launcher takes these
 * for its first catalog look-ups instead of asking again (docker-launcher.ts).
 */
export async function eagerImageIds(config: ResolvedConfig, servers: readonly ResolvedServer[]): Promise<Map<string, string | undefined>> {
  const byRef = new Map<string, Promise<string | undefined>>();
  const idOf = (ref: string) => {
    let id = byRef.get(ref);
    if (!id) byRef.set(ref, (id = imageIdOf(ref, async () => undefined).catch(() => undefined)));
    return id;
  };
  const entries = await Promise.all(
    servers.map(async (s): Promise<[string, string | undefined]> => {
      if (s.startup !== "eager" || s.source.kind === "builtin") return [s.name, undefined];
      const ref = s.source.kind === "image" ? s.source.image : await contentTag(config, s, idOf);
      return [s.name, ref === undefined ? undefined : await idOf(ref)];
    }),
  );
  return new Map(entries);
}

/** A template or `build:` server's content tag, as its build would tag it (images/plan.ts), without building. */
async function contentTag(config: ResolvedConfig, server: ResolvedServer, idOf: (ref: string) => Promise<string | undefined>): Promise<string | undefined> {
  try {
    const { planBuild } = await import("../images/plan.ts");
    return (await planBuild(server, config, { caCert: config.build.caCerts, imageId: idOf })).tag;
  } catch {
    return undefined;
  }
}

/**
 * Whether every eager server's catalog-cache entry for its image now is there and would be believed (a regular file of
 * this user that nobody else can write, not a link): the recorded answers are used only where the gateway would answer
 * from its catalog cache too; anywhere else it waits for its servers, and so does the client.
 */
function catalogsBelieved(servers: readonly ResolvedServer[], ids: readonly string[], catalogFolder: () => string): boolean {
  let dir: string;
  try {
    dir = catalogFolder();
  } catch {
    return false;
  }
  return servers.every((s, i) => {
    if (s.startup !== "eager" || s.source.kind === "builtin") return true;
    let fd: number | undefined;
    try {
      fd = fs.openSync(path.join(dir, cacheFileName(s, ids[i]!)), fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
      return trustedFile(fs.fstatSync(fd), process.getuid?.());
    } catch {
      return false;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  });
}

function readAnswers(folder: () => string, key: string): RecordedAnswer[] {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path.join(folder(), `${key}.json`), fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
    const st = fs.fstatSync(fd);
    if (!trustedFile(st, process.getuid?.()) || st.size > FILE_CAP) return [];
    const raw = JSON.parse(fs.readFileSync(fd, "utf8")) as { v?: unknown; answers?: unknown } | null;
    if (raw?.v !== FORMAT || !Array.isArray(raw.answers)) return [];
    const answers = raw.answers.filter(isAnswer);
    if (answers.length > 0) touched(fd); // a read is a use (cache-prune.ts)
    return answers;
  } catch {
    return []; // none yet, a link, not JSON: only an optimisation lost
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function writeAnswers(folder: () => string, key: string, answers: readonly RecordedAnswer[]): void {
  try {
    const text = JSON.stringify({ v: FORMAT, answers });
    if (Buffer.byteLength(text) > FILE_CAP) return;
    const dir = folder();
    const target = path.join(dir, `${key}.json`);
    const tmp = `${target}.${randomBytes(4).toString("hex")}.tmp`;
    fs.writeFileSync(tmp, text, { mode: 0o600, flag: "wx" });
    fs.renameSync(tmp, target); // replaces a link planted at the name, never writes through it
    pruneStale(dir);
  } catch {
    // only an optimisation
  }
}

function isAnswer(a: unknown): a is RecordedAnswer {
  const r = a as Partial<RecordedAnswer> | null;
  if (!r || (r.method !== "initialize" && r.method !== "tools/list") || typeof r.params !== "string" || typeof r.result !== "string") return false;
  try {
    // a result is written as it is into the client's answer: it must be one JSON object, nothing around it
    const result = JSON.parse(r.result) as unknown;
    return typeof result === "object" && result !== null && !Array.isArray(result) && JSON.stringify(result) === r.result;
  } catch {
    return false;
  }
}
