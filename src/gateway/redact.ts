/**
 * Secret values never reach the audit log, stderr or the monitor (SPEC 4.5); long strings are cut in the audit
 * log (SPEC 4.7). Pure.
 */
export const REDACTED = "[redacted]";
export const MAX_AUDIT_STRING = 1024;

export type Redact = (text: string) => string;

/** Replaces every occurrence of any secret value (longest first, so overlapping values are fully hidden). */
export function redactor(secretValues: Iterable<string>): Redact {
  const values = [...new Set(secretValues)].filter((v) => v.length >= 3).sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  };
}

/** A copy of a JSON value with secrets redacted and strings over `max` characters cut. */
export function auditValue(value: unknown, redact: Redact, max = MAX_AUDIT_STRING, depth = 0): unknown {
  if (typeof value === "string") {
    const clean = redact(value);
    return clean.length > max ? `${clean.slice(0, max)}… (${clean.length} chars)` : clean;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth > 20) return "…";
  if (Array.isArray(value)) return value.map((v) => auditValue(v, redact, max, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, auditValue(v, redact, max, depth + 1)]),
  );
}
