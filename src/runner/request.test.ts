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

  it("frames the request after a marker line", () => {
    const text = requestPayload({ language: "bash", code: "echo hi" }, "ab12").toString();
    expect(text.startsWith("\nMCPBOX-RUN-1\n")).toBe(true);
    expect(JSON.parse(text.split("\n")[2]!)).toEqual({ nonce: "ab12", language: "bash", code: "echo hi", stdin: "", files: {} });
  });
});
