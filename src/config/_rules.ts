/**
 * The schema's own rules that are code, not zod checks (schema.ts attaches them; the fast parser of _fast-parse.ts
 * calls the very same functions). Imports nothing: the fast parser must not load zod.
 */

export const SOURCE_KEYS = ["image", "template", "build", "builtin"] as const;

/** What a server's issue looks like to these rules (zod's `ctx.addIssue` takes it as it is). */
export type RuleIssue = { [key: string]: unknown; code: "custom"; message: string; path?: PropertyKey[] };

type ServerLike = Partial<Record<(typeof SOURCE_KEYS)[number] | "package" | "languages" | "maxOutputBytes" | "pool", unknown>> & { template?: string };

/** Exactly one source; package with a template only; the code runner's keys with builtin only. */
export function serverSourceRule(server: ServerLike, ctx: { addIssue: (issue: RuleIssue) => void }): void {
  const sources = SOURCE_KEYS.filter((k) => server[k] !== undefined);
  if (sources.length === 0) {
    ctx.addIssue({
      code: "custom",
      message: "has no source: set exactly one of image, template (with package), build or builtin",
    });
  } else if (sources.length > 1) {
    ctx.addIssue({
      code: "custom",
      message: `has ${sources.length} sources (${sources.join(", ")}): keep exactly one`,
    });
  }
  if (server.template !== undefined && server.package === undefined) {
    ctx.addIssue({ code: "custom", path: ["package"], message: `is required with template "${server.template}"` });
  }
  if (server.package !== undefined && server.template === undefined) {
    ctx.addIssue({ code: "custom", path: ["package"], message: 'is only used with template: "node" or "python"' });
  }
  if (server.builtin === undefined) {
    for (const key of ["languages", "maxOutputBytes", "pool"] as const) {
      if (server[key] !== undefined) {
        ctx.addIssue({ code: "custom", path: [key], message: 'is only used with builtin: "code-runner"' });
      }
    }
  }
}

/** "__" separates prefix and name: a prefix holding it (or ending in "_") could forge another server's names. */
export const prefixRule = (p: string): boolean => !p.includes("__") && !p.endsWith("_");
