import { describe, expect, it } from "vitest";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { McpboxError } from "../errors.ts";
import { FailureReports, failureText } from "./failures.ts";

function reports() {
  const stderr: string[] = [];
  const client: string[] = [];
  return { stderr, client, r: new FailureReports({ stderr: (l) => stderr.push(l), client: (l) => client.push(l) }) };
}

describe("failure reports", () => {
  it("name the fix of an McpboxError", () => {
    expect(failureText(new McpboxError("failed", "image x not found", { hint: "run `mcpbox build`" }))).toBe("image x not found; fix: run `mcpbox build`");
    expect(failureText(new Error("it exited with code 1"))).toBe("it exited with code 1");
    expect(failureText(new McpError(ErrorCode.ConnectionClosed, "Connection closed"))).toBe("Connection closed");
  });
  it("tell a failure once on stderr and to the client, with what happens next said once", () => {
    const { stderr, client, r } = reports();
    r.report("gh", "secret TOKEN needs GH_TOKEN", "retrying in 1s");
    r.report("gh", "secret TOKEN needs GH_TOKEN", "retrying in 2s");
    r.report("gh", "secret TOKEN needs GH_TOKEN");
    expect(stderr).toEqual(["gh: failed: secret TOKEN needs GH_TOKEN (retrying in 1s)"]);
    expect(client).toEqual(["server gh is not available: secret TOKEN needs GH_TOKEN"]);
    expect(r.lines()).toEqual(client);
  });
  it("tell a different failure, and the same one again after the server ran", () => {
    const { stderr, r } = reports();
    r.report("a", "x");
    r.report("a", "y");
    r.recovered("a");
    expect(r.told("a")).toBe(false);
    expect(r.lines()).toEqual([]);
    r.report("a", "y");
    expect(stderr).toEqual(["a: failed: x", "a: failed: y", "a: failed: y"]);
  });
});
