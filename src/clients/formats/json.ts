/**
 * JSON and JSONC files, edited in place with jsonc-parser's modify/applyEdits: comments, key order, other servers
 * and unknown keys stay byte for byte; only the mcpbox entries change.
 */
import {
  applyEdits,
  findNodeAtLocation,
  format,
  modify,
  parse,
  parseTree,
  printParseErrorCode,
  type FormattingOptions,
  type ParseError,
} from "jsonc-parser";
import type { ClientDescriptor } from "../types.ts";
import {
  freshDocument,
  isPlainObject,
  lineColumn,
  notAnObject,
  parseFailure,
  sameValue,
  type FormatHandler,
  type Rendered,
} from "./_shared.ts";

export const jsonFormat: FormatHandler = {
  snippet: (client, entries) => JSON.stringify(freshDocument(client, entries), null, 2) + "\n",
  merge: mergeJson,
};

function mergeJson(client: ClientDescriptor, text: string, entries: readonly Rendered[], file: string): string {
  if (text.trim() === "") return JSON.stringify(freshDocument(client, entries, true), null, 2) + "\n";
  const root = parseJsonc(text, file);
  if (!isPlainObject(root)) throw notAnObject(file, "the top level");
  let container: unknown = root;
  for (const key of client.servers.path) {
    container = isPlainObject(container) ? container[key] : undefined;
    if (container !== undefined && !isPlainObject(container)) throw notAnObject(file, client.servers.path.join("."));
  }
  const formattingOptions = formattingOf(text);
  let out = text;
  for (const { name, value } of entries) {
    const existing = isPlainObject(container) ? container[name] : undefined;
    if (sameValue(existing, value)) continue;
    const at = [...client.servers.path, name];
    out =
      existing !== undefined
        ? replaceValue(out, at, value, formattingOptions)
        : (appendProperty(out, client.servers.path, name, value, formattingOptions) ??
          applyEdits(out, modify(out, at, value, { formattingOptions })));
  }
  return out;
}

/**
 * modify() with its own formatting reformats whole lines around the edit (a neighbour written on one line would be
 * re-laid out); formatting only the new value leaves every other byte alone.
 */
function replaceValue(text: string, at: string[], value: unknown, options: FormattingOptions): string {
  const [edit] = modify(text, at, value, {});
  if (!edit) return text;
  const inserted = applyEdits(text, [edit]);
  const range = { offset: edit.offset, length: edit.content.length };
  return applyEdits(inserted, format(inserted, range, { ...options, keepLines: false }));
}

/**
 * A new entry goes on its own lines after the container's last property (after its comma and trailing comment), so
 * a comment stays with the line it was written on. Undefined when the layout is not one property per line (a
 * minified or empty object): then modify() lays out the lines it touches.
 */
function appendProperty(text: string, at: string[], name: string, value: unknown, o: FormattingOptions): string | undefined {
  const container = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true })!, at);
  const last = container?.type === "object" ? container.children?.at(-1) : undefined;
  if (!last) return undefined;
  const lastEnd = last.offset + last.length;
  const lineStart = text.lastIndexOf("\n", last.offset) + 1;
  let lineEnd = text.indexOf("\n", lastEnd);
  if (lineEnd < 0) lineEnd = text.length;
  if (text[lineEnd - 1] === "\r") lineEnd--;
  const tail = /^(\s*)(,?)([ \t]*(\/\/.*)?)$/.exec(text.slice(lastEnd, lineEnd));
  const indent = text.slice(lineStart, last.offset);
  if (!tail || indent.trim() !== "") return undefined;
  const eol = o.eol ?? "\n";
  const unit = o.insertSpaces ? " ".repeat(o.tabSize ?? 2) : "\t";
  const body = JSON.stringify(value, null, unit).split("\n").join(eol + indent);
  const comma = tail[2] ? "" : ",";
  return `${text.slice(0, lastEnd)}${comma}${text.slice(lastEnd, lineEnd)}${eol}${indent}${JSON.stringify(name)}: ${body}${text.slice(lineEnd)}`;
}

export function parseJsonc(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first) {
    const { line, column } = lineColumn(text, first.offset);
    throw parseFailure(file, printParseErrorCode(first.error), line, column);
  }
  return ownProtoKeys(value);
}

/**
 * jsonc-parser builds objects by assignment, so a `"__proto__"` key set the object's prototype: its servers were
 * inherited, seen by `init --from` and mcpbox's merge but by no client (JSON.parse, VS Code's parser and Cursor's keep
 * it as a key named `__proto__`). Each such key becomes the own property JSON.parse makes (hrev round 5). A loop, not
 * recursion: the parser already refused what nests too deep for the stack.
 */
function ownProtoKeys(root: unknown): unknown {
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const v = todo.pop();
    if (typeof v !== "object" || v === null) continue;
    if (!Array.isArray(v)) {
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        Object.setPrototypeOf(v, Object.prototype);
        Object.defineProperty(v, "__proto__", { value: proto, enumerable: true, writable: true, configurable: true });
      }
    }
    for (const child of Object.values(v)) todo.push(child);
  }
  return root;
}

/** Indent like the file already does (tabs or n spaces), and keep its line ends. */
function formattingOf(text: string): FormattingOptions {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? "  ";
  if (indent.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent.length, eol };
}
