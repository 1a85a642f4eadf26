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
/** A URL with a password in it (postgresql://user:pw@host) is a credential too. */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;

export const isCredentialValue = (v: string) => looksLikeCredential(v) || URL_PASSWORD.test(v);

export interface SplitEnv {
  env: Record<string, string>;
  secrets: Record<string, { env: string }>;
  notes: string[];
}

export function splitEnv(raw: Record<string, string>): SplitEnv {
  const out: SplitEnv = { env: {}, secrets: {}, notes: [] };
  for (const [key, value] of Object.entries(raw)) {
    if (!ENV_NAME.test(key)) {
      out.notes.push(`env ${JSON.stringify(key)} dropped: not a variable name`);
      continue;
    }
    const ref = REFERENCE.exec(value);
    if (ref) out.secrets[key] = { env: (ref[1] ?? ref[2] ?? ref[3])! };
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
    else if (/^--?[^=]+=/.test(arg) && SECRET_FLAG.test(arg.split("=")[0]!)) words.push(`${arg.split("=")[0]}=<redacted>`);
    else words.push(arg);
    hideNext = !hideNext && SECRET_FLAG.test(arg);
  }
  return [command ?? "(no command)", ...words].join(" ").replace(/[\r\n]+/g, " ");
}

/** Arguments that look like credentials cannot stay in the file. */
export function credentialArgs(args: readonly string[]): number[] {
  return args.flatMap((a, i) => (isCredentialValue(a) || (i > 0 && SECRET_FLAG.test(args[i - 1]!)) ? [i] : []));
}
