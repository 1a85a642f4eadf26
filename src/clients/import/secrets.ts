/**
 * Environment of a client entry: references and credentials become secrets (by name: a value is never copied),
 * the rest stays plain env. Also redaction of command lines shown in comments.
 */
import { credentialKeyName, looksLikeCredential } from "../../config/_credentials.ts";

/** `${NAME}`, `${env:NAME}`, `$NAME`, `{env:NAME}`: the client fills the value from its environment. */
const REFERENCE = /^(?:\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)|\{env:([A-Za-z_][A-Za-z0-9_]*)\})$/;
/** VS Code `${input:id}`: the client prompts for it. */
const INPUT = /^\$\{input:[^}]+\}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A variable name the config can hold as a key: `__proto__` would set an object's prototype instead (hrev). */
export const isEnvName = (k: string) => ENV_NAME.test(k) && k !== "__proto__";
/** A URL with a password in it (postgresql://user:pw@host) is a credential too. */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;
/** A credential-named query parameter (`?api_key=...`, `&token=...`), as remote servers' URLs often carry. */
const QUERY_SECRET = /([?&][a-z0-9_.-]*(?:token|secret|password|passwd|api[_-]?key|apikey|access[_-]?key|auth|key|sig|signature)=)[^&#\s]+/gi;
const SCHEMES = new Set(["bearer", "basic", "token"]);
const HEADER_WORDS = ["authorization", "token", "secret", "apikey", "api-key", "cookie"];

/** `Authorization`, `X-API-Key`, `Cookie`...: an HTTP header whose value is a credential (mcp-remote's --header). */
function isSecretHeaderName(name: string): boolean {
  const n = name.trim().toLowerCase();
  // HTTP's own token: no `_` (GITHUB_TOKEN: is prose), and a `-` unless it is one of the plain names (TOKEN: is a note's)
  return /^[a-z0-9-]{1,100}$/.test(n) && (n.includes("-") || ["authorization", "cookie", "apikey"].includes(n)) && HEADER_WORDS.some((w) => n.includes(w));
}

/** `Authorization: Bearer x`, `X-Api-Key:x`, `Bearer xxxxxx` as one argument. */
function isSecretHeader(v: string): boolean {
  const colon = v.indexOf(":");
  // `Authorization:${AUTH_HEADER}` names a variable (mcp-remote fills it from its environment): no secret in it
  if (colon > 0 && isSecretHeaderName(v.slice(0, colon))) return !/^\s*(?:(?:bearer|basic|token)\s+)?(\$\{(?:env:)?[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*)?\s*$/i.test(v.slice(colon + 1));
  const [scheme, value, ...more] = v.trim().split(/\s+/);
  return more.length === 0 && SCHEMES.has(scheme?.toLowerCase() ?? "") && tokenLike(value);
}

/** What follows `Bearer` or `Basic` when it is a credential, not prose: 6 or more token characters, not a word of prose (a digit or a symbol, or a capital inside). */
const tokenLike = (w: string | undefined) => w !== undefined && /^[A-Za-z0-9._~+/=-]{6,}$/.test(w) && /[^A-Za-z]|.[A-Z]/.test(w);

const hasQuerySecret = (v: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(v) && new RegExp(QUERY_SECRET.source, "i").test(v);

export const isCredentialValue = (v: string) => looksLikeCredential(v) || URL_PASSWORD.test(v) || hasQuerySecret(v) || isSecretHeader(v);

/**
 * Free text (a note, a command line or a URL kept as a comment in sandbox.config.ts) with what would be a secret
 * hidden: a URL's password and its credential-named query values, the value after a credential-named header or an
 * auth scheme, and any word that looks like a credential. The file is meant to be committed: a comment is no place
 * for a private index's token (`uvx --index-url https://__token__:pypi-...@host`) or a remote server's key (hrev).
 * Word by word, each regex starting only at `://`, `?` or `&`: linear in the text.
 */
export function redactText(text: string): string {
  const words = text.split(/(\s+)/);
  let hide = 0;
  for (let i = 0; i < words.length; i += 2) {
    const word = words[i]!;
    if (word === "") continue;
    if (hide > 0) {
      hide = SCHEMES.has(word.toLowerCase()) && hide === 2 ? 1 : 0;
      words[i] = hide === 1 ? word : "<redacted>";
      continue;
    }
    if (looksLikeCredential(word)) {
      words[i] = redactWord(word);
      continue;
    }
    const colon = word.indexOf(":");
    if (colon > 0 && isSecretHeaderName(word.slice(0, colon)) && !word.slice(colon + 1).startsWith("//")) {
      const rest = word.slice(colon + 1);
      if (rest === "") hide = 2; // `Authorization:` then its value, maybe after a scheme
      else if (SCHEMES.has(rest.toLowerCase())) hide = 1; // `Authorization:Bearer` then the token
      else words[i] = `${word.slice(0, colon + 1)}<redacted>`;
      continue;
    }
    if (SCHEMES.has(word.toLowerCase())) {
      if (tokenLike(words[i + 2])) hide = 1;
      continue;
    }
    words[i] = word.replace(/(:\/\/[^/\s:@]+:)[^/\s@]+@/g, "$1<redacted>@").replace(QUERY_SECRET, "$1<redacted>");
  }
  return words.join("");
}

/** `--api-key=<redacted>` keeps its flag; any other word goes whole. */
function redactWord(word: string): string {
  const flag = /^--?[^=\s]+=/.exec(word)?.[0];
  return flag && !looksLikeCredential(flag) ? `${flag}<redacted>` : "<redacted>";
}

export interface SplitEnv {
  env: Record<string, string>;
  secrets: Record<string, { env: string }>;
  notes: string[];
}

export function splitEnv(raw: Record<string, string>): SplitEnv {
  const out: SplitEnv = { env: {}, secrets: {}, notes: [] };
  for (const [key, value] of Object.entries(raw)) {
    if (!isEnvName(key)) {
      out.notes.push(`env ${JSON.stringify(key)} dropped: not a variable name`);
      continue;
    }
    const ref = REFERENCE.exec(value);
    if (ref) {
      const name = (ref[1] ?? ref[2] ?? ref[3])!;
      out.secrets[key] = { env: name };
      // said, as a project file (a cloned repository's) can name any variable of the host: AWS_SECRET_ACCESS_KEY
      out.notes.push(`secret ${key}: \`mcpbox serve\` gives it the value of ${name} from its own environment, as the client did`);
    }
    else if (INPUT.test(value) || credentialKeyName(key) || isCredentialValue(value)) {
      out.secrets[key] = { env: key };
      out.notes.push(`secret ${key}: its value was not copied; set ${key} where \`mcpbox serve\` runs`);
    } else out.env[key] = value;
  }
  return out;
}

const SECRET_FLAG = /^--?[a-z0-9-]*(token|secret|password|passwd|api-?key|access-?key|private-?key|credential)s?$/i;

/** The command line for a comment: credential-looking words, values after secret flags, and -e values hidden. */
export function redactedCommand(command: string | undefined, args: readonly string[]): string {
  const words: string[] = [];
  let hideNext = false;
  for (const arg of args) {
    if (hideNext) words.push("<redacted>");
    else if (isCredentialValue(arg)) words.push("<redacted>");
    else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg) && words.at(-1)?.match(/^(-e|--env)$/)) words.push(`${arg.split("=")[0]}=<redacted>`);
    else if (/^(--env=|-e)[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) words.push(`${arg.slice(0, arg.indexOf("=", arg.startsWith("--env=") ? 6 : 2))}=<redacted>`); // --env=K=V, -eK=V
    else if (/^--?[^=]+=/.test(arg) && SECRET_FLAG.test(arg.split("=")[0]!)) words.push(`${arg.split("=")[0]}=<redacted>`);
    else words.push(arg);
    hideNext = !hideNext && SECRET_FLAG.test(arg);
  }
  return [command ?? "(no command)", ...words].join(" ").replace(/[\r\n]+/g, " ");
}

/** Arguments that look like credentials cannot stay in the file. */
export function credentialArgs(args: readonly string[]): number[] {
  const out = args.flatMap((a, i) => (isCredentialValue(a) || (i > 0 && SECRET_FLAG.test(args[i - 1]!)) ? [i] : []));
  // `--header "Authorization: Bearer ..."` (mcp-remote): the flag goes with its value
  return [...new Set(out.flatMap((i) => (i > 0 && /^(-H|--headers?)$/.test(args[i - 1]!) ? [i - 1, i] : [i])))];
}
