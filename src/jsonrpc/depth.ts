/**
 * JSON nesting depth, judged on the text before anything else handles it. JSON.parse takes any depth, but
 * JSON.stringify (every message the gateway passes on) throws past a few thousand levels: a hostile peer's deeply
 * nested line is refused at the door instead of failing somewhere later. Pure; imports nothing.
 */

/** Deeper than any real MCP message (tool schemas nest a few dozen levels), far below what V8 can serialise. */
export const MAX_JSON_DEPTH = 128;

/** True when brackets outside strings nest deeper than `max` (one pass, no copy). */
export function nestedDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
