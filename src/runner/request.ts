/**
 * What run_code accepts, pure: the tool's input schema for the configured languages, validation of a call's
 * arguments, and the bytes sent on the container's stdin (see run.py).
 */
import path from "node:path";
import type { Language } from "../config/resolve.ts";

export interface RunRequest {
  readonly language: Language;
  readonly code: string;
  readonly stdin?: string | undefined;
  readonly files?: Readonly<Record<string, string>> | undefined;
}

export const MAX_FILES = 100;
const MARKER = "\nMCPBOX-RUN-3\n";
const RESERVED = /^\.run_code\.(py|js|sh)$/;

export function inputSchema(languages: readonly Language[]) {
  return {
    type: "object" as const,
    properties: {
      language: { type: "string", enum: [...languages], description: "The language of the code" },
      code: { type: "string", description: "The program's source code; it runs in /work, a fresh empty folder" },
      stdin: { type: "string", description: "Text given to the program on its standard input" },
      files: {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Text files placed in /work before the run: { relative path: content }",
      },
    },
    required: ["language", "code"],
    additionalProperties: false,
  };
}

/** The arguments as a RunRequest, or a message saying what is wrong with them. */
export function parseRequest(args: unknown, languages: readonly Language[]): RunRequest | { error: string } {
  if (!args || typeof args !== "object") return { error: "arguments must be an object" };
  const a = args as Record<string, unknown>;
  if (typeof a.language !== "string" || !(languages as readonly string[]).includes(a.language)) {
    return { error: `language must be one of ${languages.join(", ")}` };
  }
  if (typeof a.code !== "string") return { error: "code must be a string" };
  if (a.stdin !== undefined && typeof a.stdin !== "string") return { error: "stdin must be a string" };
  const files = a.files ?? undefined;
  if (files !== undefined) {
    const problem = filesProblem(files);
    if (problem) return { error: problem };
  }
  return {
    language: a.language as Language,
    code: a.code,
    stdin: a.stdin as string | undefined,
    files: files as Record<string, string> | undefined,
  };
}

function filesProblem(files: unknown): string | undefined {
  if (typeof files !== "object" || files === null || Array.isArray(files)) return "files must be { path: content }";
  const entries = Object.entries(files);
  if (entries.length > MAX_FILES) return `at most ${MAX_FILES} files`;
  for (const [name, content] of entries) {
    if (typeof content !== "string") return `files.${name} must be a string`;
    if (!isRelativeInside(name)) return `file path ${JSON.stringify(name)} must be relative and stay inside /work`;
    if (RESERVED.test(name)) return `file path ${name} is reserved for the code itself`;
  }
  return undefined;
}

function isRelativeInside(name: string): boolean {
  if (name === "" || name.includes("\0") || name.includes("\\") || path.posix.isAbsolute(name)) return false;
  const norm = path.posix.normalize(name);
  return norm !== "." && !norm.startsWith("../") && norm !== ".." && !norm.endsWith("/");
}

/**
 * What goes on the container's stdin (see run.py): the marker line, the length of the rest in 10 digits and a newline,
 * a line `<language> <code bytes>[ <path bytes> <content bytes>]...`, the code, each file's path and content (UTF-8);
 * then the run's stdin, which the run reads from that same stream (the launcher reads the request to its last byte and
 * not one further). With the length the request is in as soon as its last byte arrived, not once the end of stdin did
 * (the engine passes that on 1.5-3 ms after the data, measured).
 */
export function requestPayload(req: RunRequest): Buffer {
  const code = Buffer.from(req.code, "utf8");
  const parts: Buffer[] = [code];
  let line = `${req.language} ${code.length}`;
  for (const [name, content] of Object.entries(req.files ?? {})) {
    const path = Buffer.from(name, "utf8");
    const data = Buffer.from(content, "utf8");
    parts.push(path, data);
    line += ` ${path.length} ${data.length}`;
  }
  const header = Buffer.from(`${line}\n`, "utf8");
  const length = header.length + parts.reduce((n, p) => n + p.length, 0);
  const framing = Buffer.from(`${MARKER}${String(length).padStart(10, "0")}\n`, "utf8");
  return Buffer.concat([framing, header, ...parts, Buffer.from(req.stdin ?? "", "utf8")]);
}
