/**
 * Writes _fast-parse.ts: the config schema (schema.ts) as plain code that parses a config the schema accepts into
 * the very value zod's safeParse gives (same keys, same order, same copies), and gives up on anything else, which
 * zod then parses and reports as before. Loading zod and building the schema cost validate ~60% of its start
 * (issue 15); the fast parser needs neither. It mirrors zod 4's own parse steps one by one (object: read each shape
 * key, then `key in input`, then `for...in` for unknown keys; record: Reflect.ownKeys, enumerable only, __proto__
 * skipped; strings measured in code points as zod does), and refuses to generate for any schema kind or check it
 * does not know, so a schema change cannot silently be parsed differently: fast-parse.test.ts fails while the file
 * is stale, and compares both parsers on many configs.
 *
 *   node src/config/_fast-gen.ts --write     (after changing schema.ts)
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { Server, UserConfigSchema } from "./schema.ts";
import { prefixRule } from "./_rules.ts";

type Node = z.core.$ZodType;
type Def = Record<string, unknown> & { type: string; checks?: { _zod: { def: Record<string, unknown> & { check: string } } }[] };

/** zod's own condition of a length check ("the value has a length"): it holds for every string and array. */
const HAS_LENGTH = (z.string().min(1)._zod.def.checks![0]!._zod.def as { when?: unknown }).when;

/** The code functions schema.ts attaches, by the name _fast-parse.ts imports them under. */
const REFINES = new Map<unknown, string>([[prefixRule, "prefixRule"]]);

export function generateFastParse(): string {
  const names = new Map<Node, string>();
  const bodies: string[] = [];
  const regexes: string[] = [];
  const sets: string[] = [];
  const regex = (r: RegExp) => {
    regexes.push(`const R${regexes.length} = ${r.toString()};`);
    return `R${regexes.length - 1}`;
  };

  // one function per distinct body: .describe() and .meta() make copies that parse alike
  const byBody = new Map<string, string>();
  const inProgress = new Set<Node>();
  const fn = (node: Node): string => {
    const known = names.get(node);
    if (known) return known;
    if (inProgress.has(node)) fail("a recursive schema");
    inProgress.add(node);
    const text = body(node).map((l) => `  ${l}`).join("\n");
    inProgress.delete(node);
    let name = byBody.get(text);
    if (!name) {
      name = `p${byBody.size}`;
      byBody.set(text, name);
      bodies.push(`function ${name}(v: any): any {\n${text}\n}`);
    }
    names.set(node, name);
    return name;
  };

  const fail = (what: string): never => {
    throw new Error(`_fast-gen: ${what}: teach src/config/_fast-gen.ts to parse it exactly as zod does`);
  };

  const body = (node: Node): string[] => {
    const def = node._zod.def as unknown as Def;
    const checks = def.checks ?? [];
    const out: string[] = [];
    const noChecks = () => checks.length > 0 && fail(`checks on a ${def.type}`);
    if (def.coerce) fail(`a coercing ${def.type}`);
    switch (def.type) {
      case "string":
        out.push('if (typeof v !== "string") return FAIL;');
        for (const c of checks) out.push(stringCheck(c._zod.def));
        out.push("return v;");
        return out;
      case "number":
        out.push('if (typeof v !== "number" || Number.isNaN(v) || !Number.isFinite(v)) return FAIL;');
        for (const c of checks) out.push(numberCheck(c._zod.def));
        out.push("return v;");
        return out;
      case "boolean":
        noChecks();
        return ['return typeof v === "boolean" ? v : FAIL;'];
      case "literal":
      case "enum": {
        noChecks();
        const values = def.type === "literal" ? (def.values as unknown[]) : Object.values(def.entries as Record<string, unknown>);
        if (!values.every((x) => typeof x === "string" || typeof x === "boolean")) fail(`a ${def.type} of other than strings and booleans`);
        return [`return ${values.map((x) => `v === ${JSON.stringify(x)}`).join(" || ")} ? v : FAIL;`];
      }
      case "template_literal": {
        noChecks();
        const pattern = (node._zod as unknown as { pattern: RegExp }).pattern;
        const r = regex(pattern);
        return ['if (typeof v !== "string") return FAIL;', `${r}.lastIndex = 0;`, `return ${r}.test(v) ? v : FAIL;`];
      }
      case "optional": {
        noChecks();
        const inner = def.innerType as Node;
        if (inner._zod.optin === "defaulted") fail("an optional of a defaulted schema");
        return ["if (v === undefined) return undefined;", `return ${fn(inner)}(v);`];
      }
      case "union": {
        noChecks();
        if (def.inclusive === false) fail("an exclusive union");
        const options = (def.options as Node[]).map(fn);
        return ["let r;", ...options.map((o) => `if ((r = ${o}(v)) !== FAIL) return r;`), "return FAIL;"];
      }
      case "array": {
        const el = fn(def.element as Node);
        out.push("if (!Array.isArray(v)) return FAIL;", "const o = Array(v.length);");
        out.push("for (let i = 0; i < v.length; i++) {", `  const r = ${el}(v[i]);`, "  if (r === FAIL) return FAIL;", "  o[i] = r;", "}");
        for (const c of checks) {
          const d = c._zod.def;
          if (d.check !== "min_length" || (d.when && d.when !== HAS_LENGTH)) fail(`an array check ${d.check}`);
          out.push(`if (o.length < ${Number(d.minimum)}) return FAIL;`);
        }
        out.push("return o;");
        return out;
      }
      case "record": {
        noChecks();
        const key = def.keyType as Node;
        if (def.mode !== undefined && def.mode !== "strict") fail(`a ${String(def.mode)} record`);
        if (def.partial || (key._zod as { values?: unknown }).values) fail("a record of enumerable keys");
        if ((key._zod.def as unknown as Def).type !== "string") fail("a record key that is not a string schema");
        const k = fn(key);
        const val = fn(def.valueType as Node);
        return [
          "if (!isPlainObject(v)) return FAIL;",
          "const o: any = {};",
          "for (const key of Reflect.ownKeys(v)) {",
          '  if (key === "__proto__" || !Object.prototype.propertyIsEnumerable.call(v, key)) continue;',
          '  if (typeof key !== "string") return FAIL;',
          `  const kk = ${k}(key);`,
          '  if (kk === FAIL) return FAIL;',
          '  if (kk === "__proto__") continue;',
          `  const r = ${val}(v[key]);`,
          "  if (r === FAIL) return FAIL;",
          "  o[kk] = r;",
          "}",
          "return o;",
        ];
      }
      case "object": {
        const catchall = def.catchall as Node | undefined;
        if (!catchall || (catchall._zod.def as unknown as Def).type !== "never") fail("an object that is not strict");
        const shape = def.shape as Record<string, Node>;
        if (Object.getOwnPropertySymbols(shape).length > 0) fail("an object with symbol keys");
        const keys = Object.keys(shape);
        out.push("if (!isObject(v)) return FAIL;", "const o: any = {};", "let r;");
        for (const key of keys) {
          if (key === "__proto__" || key in Object.prototype) fail(`an object key ${key}`);
          const el = shape[key]!;
          const { optin, optout } = el._zod;
          const k = JSON.stringify(key);
          // zod reads the value, then asks `in`: an optional key that is not there is left out, whatever was read
          if (optin === "optional" && optout === "optional") out.push(`r = ${fn(el)}(v[${k}]);`, `if (${k} in v) { if (r === FAIL) return FAIL; o[${k}] = r; }`);
          else if (optin === undefined && optout === undefined) out.push(`if ((r = ${fn(el)}(v[${k}])) === FAIL || !(${k} in v)) return FAIL;`, `o[${k}] = r;`);
          else fail(`a key ${key} that is optional one way only`);
        }
        sets.push(`const K${sets.length} = new Set(${JSON.stringify(keys)});`);
        out.push(`for (const key in v) if (!K${sets.length - 1}.has(key)) return FAIL;`);
        for (const c of checks) {
          const d = c._zod.def;
          // the one superRefine of the schema: the server's sources (its `when` holds for any object)
          if (node !== (Server as unknown as Node) || d.check !== "custom" || checks.length !== 1 || typeof d.when !== "function") fail(`an object check ${d.check}`);
          out.push("if (!superRefined(serverSourceRule, o)) return FAIL;");
        }
        out.push("return o;");
        return out;
      }
      default:
        return fail(`a ${def.type} schema`);
    }
  };

  const stringCheck = (d: Record<string, unknown> & { check: string; type?: string }): string => {
    if (d.when && d.when !== HAS_LENGTH) fail(`a string check ${d.check} with its own condition`);
    switch (d.check) {
      case "min_length":
        return `if (!minLength(v, ${Number(d.minimum)})) return FAIL;`;
      case "max_length":
        return `if (!maxLength(v, ${Number(d.maximum)})) return FAIL;`;
      case "string_format": {
        if (d.format === "regex") {
          const r = regex(d.pattern as RegExp);
          return `${r}.lastIndex = 0; if (!${r}.test(v)) return FAIL;`;
        }
        if (d.format === "starts_with") return `if (!v.startsWith(${JSON.stringify(d.prefix)})) return FAIL;`;
        return fail(`a string format ${String(d.format)}`);
      }
      case "custom": {
        const name = REFINES.get(d.fn);
        if (!name || d.type !== "custom") fail("a refine of a string");
        return `if (!${name}(v)) return FAIL;`;
      }
      default:
        return fail(`a string check ${d.check}`);
    }
  };

  const numberCheck = (d: Record<string, unknown> & { check: string }): string => {
    if (d.when) fail(`a number check ${d.check} with its own condition`);
    switch (d.check) {
      case "number_format":
        if (d.format !== "safeint") fail(`a number format ${String(d.format)}`);
        return "if (!Number.isSafeInteger(v)) return FAIL;";
      case "greater_than":
        return `if (!(v ${d.inclusive ? ">=" : ">"} ${Number(d.value)})) return FAIL;`;
      case "less_than":
        return `if (!(v ${d.inclusive ? "<=" : "<"} ${Number(d.value)})) return FAIL;`;
      default:
        return fail(`a number check ${d.check}`);
    }
  };

  const root = fn(UserConfigSchema as unknown as Node);
  return `${HEADER}
${regexes.join("\n")}
${sets.join("\n")}

/** The config as UserConfigSchema.safeParse(raw).data, or undefined: then zod parses it and says what is wrong. */
export function fastParseConfig(raw: unknown): ParsedConfig | undefined {
  const r = ${root}(raw);
  return r === FAIL ? undefined : (r as ParsedConfig);
}

${bodies.join("\n\n")}
`;
}

const HEADER = `// Generated by src/config/_fast-gen.ts from schema.ts: do not edit (node src/config/_fast-gen.ts --write).
// zod 4's parse of UserConfigSchema as plain code, for configs it accepts; anything else gives up (FAIL) and zod parses it.
/* eslint-disable */
import type { ParsedConfig } from "./schema.ts";
import { prefixRule, serverSourceRule } from "./_rules.ts";
import { FAIL, isObject, isPlainObject, maxLength, minLength, superRefined } from "./_fast-runtime.ts";

`;

export const FAST_PARSE_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "_fast-parse.ts");

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = generateFastParse();
  if (process.argv.includes("--write")) fs.writeFileSync(FAST_PARSE_FILE, text);
  else process.stdout.write(text);
}
