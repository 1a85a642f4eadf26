/**
 * SEP-2106 for a 2025-11-25 client (pure). The SDK server applies its 2025 codec's projectCallToolResult only in
 * McpServer's own tools/call handler, never to a low-level handler's result (the gateway's) nor to what the raw route
 * writes: every route of tools/call to a 2025-11-25 client applies this one instead.
 */

/**
 * A tools/call result for a 2025-11-25 client, projected as the SDK's 2025 codec does (rev2025Codec.projectCallToolResult,
 * SEP-2106): a tool whose listed outputSchema root is not an object is listed to that client wrapped as
 * `{type:"object", properties:{result:<schema>}, required:["result"]}` (the SDK server's tools/list encoding), so its
 * structuredContent goes as `{result: value}`; a non-object value too, with a text block of its JSON when the result has
 * none. Undefined when nothing changes (a result without structuredContent, an object under an object schema); the
 * tool's listed outputSchema is asked for only for an object value.
 */
export function legacyToolResult(result: Record<string, unknown>, outputSchema: () => unknown): Record<string, unknown> | undefined {
  const value = result.structuredContent;
  if (value === undefined) return undefined;
  const nonObject = !isRecord(value);
  if (!nonObject) {
    const schema = outputSchema();
    if (!isRecord(schema) || schema.type === "object") return undefined;
  }
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : undefined;
  const withText = nonObject && !content?.some((c) => isRecord(c) && c.type === "text");
  return {
    ...result,
    ...(withText ? { content: [...(content ?? []), { type: "text", text: JSON.stringify(value) }] } : {}),
    structuredContent: { result: value },
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
