/**
 * What the generated config parser (_fast-parse.ts, written by _fast-gen.ts) calls: zod 4's own helpers as plain code,
 * kept here once rather than written into the generated file.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
export const FAIL = Symbol("fail");

export const isObject = (v: unknown): boolean => typeof v === "object" && v !== null && !Array.isArray(v);

/** zod's util.isPlainObject, as it is. */
export function isPlainObject(o: any): boolean {
  if (isObject(o) === false) return false;
  const ctor = o.constructor;
  if (ctor === undefined) return true;
  if (typeof ctor !== "function") return true;
  const prot = ctor.prototype;
  if (isObject(prot) === false) return false;
  if (Object.prototype.hasOwnProperty.call(prot, "isPrototypeOf") === false) return false;
  return true;
}

/** zod's util.codePointLength: strings are measured in code points. */
export function codePoints(s: string): number {
  const units = s.length;
  let count = units;
  for (let i = 0; i < units - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}
export const minLength = (s: string, n: number): boolean => (s.length >= n && s.length < n * 2 ? codePoints(s) : s.length) >= n;
export const maxLength = (s: string, n: number): boolean => (s.length > n ? codePoints(s) : s.length) <= n;

/** A superRefine's verdict: did it add no issue? */
export function superRefined(rule: (value: any, ctx: { addIssue: (issue: unknown) => void }) => void, value: unknown): boolean {
  let ok = true;
  rule(value, { addIssue: () => void (ok = false) });
  return ok;
}
