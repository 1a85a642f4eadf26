import { describe, expect, it } from "vitest";
import { inputSchema, parseRequest, requestPayload } from "./request.ts";

const langs = ["python", "bash"] as const;

describe("run_code arguments", () => {
  it("lists the configured languages in the input schema", () => {
    expect(inputSchema(langs).properties.language.enum).toEqual(["python", "bash"]);
  });

  it("accepts a valid request", () => {
    const r = parseRequest({ language: "python", code: "print(1)", stdin: "x", files: { "a/b.txt": "y" } }, langs);
    expect(r).toEqual({ language: "python", code: "print(1)", stdin: "x", files: { "a/b.txt": "y" } });
  });

  it.each([
    [{ language: "node", code: "1" }, "language must be one of python, bash"],
    [{ language: "python" }, "code must be a string"],
    [{ language: "python", code: "", files: { "../x": "" } }, "must be relative"],
    [{ language: "python", code: "", files: { "/etc/x": "" } }, "must be relative"],
    [{ language: "python", code: "", files: { "a/../../x": "" } }, "must be relative"],
    [{ language: "python", code: "", files: { ".run_code.py": "" } }, "reserved"],
    [{ language: "python", code: "", files: { x: 1 } }, "must be a string"],
  ])("refuses %j", (args, message) => {
    const r = parseRequest(args, langs);
    expect("error" in r && r.error).toContain(message);
  });

  it("frames the request after a marker line and a line with its length in bytes", () => {
    const payload = requestPayload({ language: "bash", code: "echo hé" }, "ab12");
    const text = payload.toString();
    expect(text.startsWith("\nMCPBOX-RUN-2\n")).toBe(true);
    const [, , length, json] = text.split("\n");
    expect(JSON.parse(json!)).toEqual({ nonce: "ab12", language: "bash", code: "echo hé", stdin: "", files: {} });
    expect(Number(length)).toBe(Buffer.byteLength(json!));
    expect(payload.length).toBe("\nMCPBOX-RUN-2\n".length + length!.length + 1 + Number(length));
  });
});
