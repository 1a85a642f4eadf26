/**
 * The config is code mcpbox runs as the user: it, and every module it imports, must be the user's own (SPEC 1). A file
 * another user owns or may write, or that sits in a folder they may write or replace, is refused before it runs.
 * The file system is passed in, so tests can fake owners and modes.
 */
import fs from "node:fs";
import path from "node:path";
import { McpboxError } from "../errors.ts";

export interface TrustFs {
  /** the user mcpbox runs as; undefined where there are no uids (Windows) */
  uid: number | undefined;
  stat: (p: string) => { uid: number; mode: number; isDirectory(): boolean };
  realpath: (p: string) => string;
}

export const realTrustFs = (): TrustFs => ({
  uid: process.getuid?.(),
  stat: (p) => fs.statSync(p),
  realpath: (p) => fs.realpathSync(p),
});

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

/** Why `file` (or a folder above it) is not the user's own, or undefined. */
export function untrustedReason(file: string, tfs: TrustFs): { message: string; hint: string } | undefined {
  const uid = tfs.uid;
  if (uid === undefined) return undefined;
  const owned = (owner: number) => owner === uid || owner === 0;
  let real: string;
  let st: ReturnType<TrustFs["stat"]>;
  try {
    real = tfs.realpath(file);
    st = tfs.stat(real);
  } catch (e) {
    // nothing is loaded that could not be looked at first
    const code = (e as { code?: string }).code ?? "unreadable";
    return { message: `${file}: refused: cannot be looked at (${code})`, hint: "check that the file exists and that you can read it" };
  }
  const mode = octal(st.mode);
  const shown = real === file ? file : `${file} (-> ${real})`;
  if (!owned(st.uid)) {
    return {
      message: `${shown}: refused: owned by uid ${st.uid}, not by you (uid ${uid}); mcpbox runs only config code of your own`,
      hint: `if you trust it, copy it into a file of your own; if it is yours: chown ${uid} ${real}`,
    };
  }
  if (st.mode & GROUP_OR_OTHER_WRITE) {
    return {
      message: `${shown}: refused: writable by other users (mode ${mode}); mcpbox runs only config code nobody else can change`,
      hint: `chmod go-w ${real}`,
    };
  }
  // every folder above, on the path as given and as resolved: whoever can rename an entry there can swap the file
  for (const dir of new Set([...ancestors(path.dirname(path.resolve(file))), ...ancestors(path.dirname(real))])) {
    const d = tfs.stat(dir);
    if (!owned(d.uid)) {
      return {
        message: `${shown}: refused: its folder ${dir} is owned by uid ${d.uid}, not by you (uid ${uid}), so that user could replace it`,
        hint: "keep the config (and what it imports) in folders of your own",
      };
    }
    if (d.mode & GROUP_OR_OTHER_WRITE && !(d.mode & STICKY)) {
      return {
        message: `${shown}: refused: its folder ${dir} is writable by other users (mode ${octal(d.mode)}, no sticky bit), so they could replace it`,
        hint: `chmod go-w ${dir}`,
      };
    }
  }
  return undefined;
}

/** Throws the McpboxError that refuses an untrusted config file or module. */
export function assertTrusted(file: string, tfs: TrustFs = realTrustFs()): void {
  const why = untrustedReason(file, tfs);
  if (why) throw new McpboxError("config", why.message, { hint: why.hint });
}

function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    out.push(d);
    if (path.dirname(d) === d) return out;
  }
}

const octal = (mode: number) => `0${(mode & 0o7777).toString(8)}`;
