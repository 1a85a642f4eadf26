/**
 * Template rendering, pure: `{{NAME}}` is replaced by a value, and a `{{#if NAME}}` ... `{{/if}}` block (on lines of
 * their own) is kept only when NAME is true. The result is the Dockerfile `mcpbox build --print` shows.
 */
export type TemplateVars = Readonly<Record<string, string | boolean>>;

const BLOCK = /^\{\{#if ([A-Z_]+)\}\}\n([\s\S]*?)^\{\{\/if\}\}\n/gm;
const VALUE = /\{\{([A-Z_]+)\}\}/g;

export function renderTemplate(text: string, vars: TemplateVars): string {
  const withBlocks = text.replace(BLOCK, (_, name: string, body: string) => (lookup(vars, name) === true ? body : ""));
  return withBlocks.replace(VALUE, (_, name: string) => {
    const v = lookup(vars, name);
    if (typeof v !== "string") throw new Error(`template value ${name} is not a string`);
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
