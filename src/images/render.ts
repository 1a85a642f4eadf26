/**
 * Template rendering, pure: `{{NAME}}` is replaced by a value, and a `{{#if NAME}}` ... `{{/if}}` block (on lines of
 * their own) is kept only when NAME is true. The result is the Dockerfile `mcpbox build --print` shows. A value never
 * holds a control character: a newline would end the instruction and start one of the value's choosing.
 */
import { McpboxError } from "../errors.ts";

export type TemplateVars = Readonly<Record<string, string | boolean>>;

// C0 (newline, carriage return, tab...), DEL, C1 and the Unicode line and paragraph separators
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The first control character in s as "U+000A", or undefined. */
export function controlCharIn(s: string): string | undefined {
  const c = CONTROL.exec(s)?.[0];
  return c === undefined ? undefined : `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

const BLOCK = /^\{\{#if ([A-Z_]+)\}\}\n([\s\S]*?)^\{\{\/if\}\}\n/gm;
const VALUE = /\{\{([A-Z_]+)\}\}/g;

export function renderTemplate(text: string, vars: TemplateVars): string {
  const withBlocks = text.replace(BLOCK, (_, name: string, body: string) => (lookup(vars, name) === true ? body : ""));
  return withBlocks.replace(VALUE, (_, name: string) => {
    const v = lookup(vars, name);
    if (typeof v !== "string") throw new Error(`template value ${name} is not a string`);
    const control = controlCharIn(v);
    if (control !== undefined) {
      throw new McpboxError("config", `the Dockerfile's {{${name}}} would hold a control character (${control})`, {
        hint: "remove newlines and other control characters from the server's package and build.baseImages",
      });
    }
    return v;
  });
}

function lookup(vars: TemplateVars, name: string): string | boolean {
  const v = vars[name];
  if (v === undefined) throw new Error(`template uses {{${name}}}, which has no value`);
  return v;
}

/** Quotes a word for /bin/sh only when it needs it, so the rendered Dockerfile stays readable. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9@%+=:,./_~^-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
