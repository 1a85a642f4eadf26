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

  it("frames the request: marker line, 10-digit length of the rest, a line of sizes, the bytes, then the run's stdin", () => {
    const payload = requestPayload({ language: "bash", code: "echo hé", stdin: "in\n", files: { "a/b.txt": "y", "c": "zz" } });
    const marker = "\nMCPBOX-RUN-3\n";
    expect(payload.subarray(0, marker.length).toString()).toBe(marker);
    const length = payload.subarray(marker.length, marker.length + 11).toString();
    expect(length).toMatch(/^\d{10}\n$/);
    const body = payload.subarray(marker.length + 11, marker.length + 11 + Number(length));
    expect(body.toString()).toBe("bash 8 7 1 1 2\necho héa/b.txtyczz");
    expect(payload.subarray(marker.length + 11 + Number(length)).toString()).toBe("in\n");
    expect(requestPayload({ language: "python", code: "" }).toString()).toBe(`${marker}0000000009\npython 0\n`);
  });
});
