/**
 * Does a URI fall under a resource template? Decided in linear time: the SDK's UriTemplate.match builds a regex
 * that a hostile template (`x:{+a}{+b}{+c}...`) and URI make backtrack for minutes, blocking every server. Each
 * expression is taken to match any text (a little wider than RFC 6570), so a URI matches when it starts with the
 * template's first literal, ends with its last, and holds the ones between in order. Pure.
 */

/** Longer URIs match no template (a listed resource is still found by its exact URI). */
export const MAX_MATCHED_URI = 8192;

/** The template's literal parts around its expressions, or undefined when its braces do not pair. */
export function templateLiterals(template: string): string[] | undefined {
  const literals: string[] = [];
  let at = 0;
  for (;;) {
    const open = template.indexOf("{", at);
    const close = template.indexOf("}", at);
    if (open === -1) {
      if (close !== -1) return undefined;
      literals.push(template.slice(at));
      return literals;
    }
    if (close !== -1 && close < open) return undefined;
    const end = template.indexOf("}", open);
    if (end === -1 || template.slice(open + 1, end).includes("{")) return undefined;
    literals.push(template.slice(at, open));
    at = end + 1;
  }
}

export function templateMatches(template: string, uri: string): boolean {
  if (uri.length > MAX_MATCHED_URI) return false;
  const literals = templateLiterals(template);
  if (!literals) return false;
  if (literals.length === 1) return uri === literals[0];
  const first = literals[0]!;
  const last = literals.at(-1)!;
  if (!uri.startsWith(first) || !uri.endsWith(last) || uri.length < first.length + last.length) return false;
  let pos = first.length;
  const end = uri.length - last.length;
  for (const literal of literals.slice(1, -1)) {
    if (literal === "") continue;
    const found = uri.indexOf(literal, pos);
    if (found === -1 || found + literal.length > end) return false;
    pos = found + literal.length;
  }
  return true;
}

/** The literal text before the first expression. */
export const literalPrefix = (template: string): string => template.split("{")[0]!;

/**
 * A template's prefix must name a place, not a whole scheme: `scheme:` and more text, and after `scheme://` a host or
 * a path (`note://team/{id}`, `file:///{+path}`, `urn:x:{id}`; not `{+any}`, `file:{+p}`, `https://{+p}`).
 */
export function namesAPlace(prefix: string): boolean {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:(.*)$/s.exec(prefix);
  if (!m) return false;
  const rest = m[1]!;
  return rest.startsWith("//") ? rest.length > 2 : rest.length > 0;
}
