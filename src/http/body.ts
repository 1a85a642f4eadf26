/** A POST body read whole, up to a cap (SPEC 4.3 holds for HTTP too), and parsed as JSON. */
import type http from "node:http";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../jsonrpc/depth.ts";

export type Body = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string; code: number };

export async function readBody(req: http.IncomingMessage, res: http.ServerResponse, maxBytes: number): Promise<Body> {
  const tooLarge: Body = { ok: false, status: 413, message: `Payload too large: mcpbox takes at most ${maxBytes} bytes in one request`, code: -32600 };
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return refuseRest(req, res, tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return refuseRest(req, res, tooLarge);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  // as on stdio (SECURITY.md boundary 4): JSON nested deeper than any MCP message is refused before it is parsed,
  // since what the gateway later does with it (stringify, forward) would overflow the stack
  if (nestedDeeperThan(text)) return { ok: false, status: 400, message: `Invalid request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`, code: -32600 };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, status: 400, message: "Parse error: the body is not JSON", code: -32700 };
  }
}

/** The answer goes out, then the connection closes: the rest of an oversized body is never read into memory. */
function refuseRest(req: http.IncomingMessage, res: http.ServerResponse, body: Body): Body {
  res.setHeader("connection", "close");
  res.once("finish", () => req.destroy());
  return body;
}
