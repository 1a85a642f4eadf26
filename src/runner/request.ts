/**
 * What run_code accepts, pure: the tool's input schema for the configured languages, validation of a call's
 * arguments, and the bytes sent on the container's stdin (a marker line, then the request as JSON; see run.py).
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
const MARKER = "\nMCPBOX-RUN-2\n";
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
 * What the launcher in the container reads from stdin: the marker line, the JSON's length in bytes on a line, the JSON;
 * `nonce` marks its exit trailer (hex). With the length the launcher starts the run as soon as the request is in, not
 * once the end of stdin arrived (the engine passes that on 1.5-3 ms after the data, measured).
 */
export function requestPayload(req: RunRequest, nonce: string): Buffer {
  const body = Buffer.from(JSON.stringify({ nonce, language: req.language, code: req.code, stdin: req.stdin ?? "", files: req.files ?? {} }), "utf8");
  return Buffer.concat([Buffer.from(`${MARKER}${body.length}\n`, "utf8"), body]);
}
